#include "posembed/weight_files.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <vector>

#include "vectors.hpp"

namespace posembed {
namespace {

std::vector<uint8_t> file_bytes(const std::string& name) {
  std::ifstream file(std::string(POSEMBED_VECTORS_DIR) + "/formats/" + name, std::ios::binary);
  INFO(name);
  REQUIRE(file.good());
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

bool is_npy(const std::string& name) { return name.ends_with(".npy"); }

// A column-major 2-D payload in row-major order (the golden files' Fortran array is a matrix).
std::vector<float> row_major(const std::vector<float>& stored, const std::vector<int64_t>& shape) {
  REQUIRE(shape.size() == 2);
  const auto [rows, columns] = std::pair(static_cast<std::size_t>(shape[0]), static_cast<std::size_t>(shape[1]));
  std::vector<float> out(stored.size());
  for (std::size_t r = 0; r < rows; ++r) for (std::size_t c = 0; c < columns; ++c) out[r * columns + c] = stored[c * rows + r];
  return out;
}

// Reads every tensor of a file as float32 (row-major); the first failure's status otherwise.
Status read_all(const std::vector<uint8_t>& bytes, bool npy, std::vector<StoredTensor>& tensors, std::vector<std::vector<float>>& data) {
  tensors.clear();
  data.clear();
  if (npy) {
    tensors.emplace_back();
    POSEMBED_RETURN_IF_ERROR(read_npy_header(bytes, bytes.size(), tensors.back()));
  } else {
    WeightFileHeader header;
    POSEMBED_RETURN_IF_ERROR(read_safetensors_header(bytes, bytes.size(), header));
    tensors = header.tensors;
  }
  for (const auto& tensor : tensors) {
    if (!is_float(tensor.dtype)) return Status::format_error("tensor '" + tensor.name + "' has dtype " + tensor.dtype_text + " (at byte " + std::to_string(tensor.data_offset) + ")");
    std::vector<float> stored(tensor.element_count);
    POSEMBED_RETURN_IF_ERROR(convert_to_float(tensor.dtype, std::span(bytes).subspan(tensor.data_offset, tensor.byte_count), stored));
    data.push_back(tensor.fortran_order ? row_major(stored, tensor.shape) : stored);
  }
  return {};
}

void check_tensor(const StoredTensor& tensor, const std::vector<float>& data, const nlohmann::json& expected) {
  CHECK(tensor.shape == expected.at("shape").get<std::vector<int64_t>>());
  test::require_close(data, test::doubles(expected.at("data")), 0.0);
}

TEST_CASE("weight files: every good file reads as expected, every bad one is refused with a byte offset", "[weight_files]") {
  const auto expectations = nlohmann::json::parse(std::ifstream(std::string(POSEMBED_VECTORS_DIR) + "/formats/expected.json"));
  REQUIRE(expectations.size() >= 10);
  for (const auto& [name, expected] : expectations.items()) {
    SECTION(name) {
      const auto bytes = file_bytes(name);
      std::vector<StoredTensor> tensors;
      std::vector<std::vector<float>> data;
      const Status status = read_all(bytes, is_npy(name), tensors, data);
      INFO(status.message());
      if (expected.at("ok").get<bool>()) {
        REQUIRE(status.ok());
        if (is_npy(name)) {
          check_tensor(tensors[0], data[0], expected);
        } else {
          REQUIRE(tensors.size() == expected.at("tensors").size());
          for (std::size_t i = 0; i < tensors.size(); ++i) check_tensor(tensors[i], data[i], expected.at("tensors").at(tensors[i].name));
        }
      } else {
        CHECK(status.kind() == ErrorKind::kFormat);
        CHECK(status.message().find("(at byte ") != std::string::npos);
      }
    }
  }
}

TEST_CASE("weight files: every truncation of a good file is refused, never read past the end", "[weight_files]") {
  for (const std::string name : {"ok_f32.npy", "ok_f16.npy", "ok_fortran.npy", "ok_mixed.safetensors"}) {
    const auto whole = file_bytes(name);
    for (std::size_t length = 0; length < whole.size(); ++length) {
      // A copy of exactly `length` bytes, so a read past its end is a read outside the allocation.
      const std::vector<uint8_t> truncated(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(length));
      std::vector<StoredTensor> tensors;
      std::vector<std::vector<float>> data;
      const Status status = read_all(truncated, is_npy(name), tensors, data);
      INFO(name << " truncated to " << length << " bytes");
      REQUIRE(status.kind() == ErrorKind::kFormat);
    }
  }
}

TEST_CASE("weight files: half floats convert exactly, including subnormals, infinities and NaN", "[weight_files]") {
  // A v1 .npy of f2 values built here: 1, -2, 65504 (max), 2^-24 (smallest subnormal), -inf, nan, 0.
  const std::string header = "{'descr': '<f2', 'fortran_order': False, 'shape': (7,), }";
  std::vector<uint8_t> bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<uint8_t>(header.size()), 0};
  bytes.insert(bytes.end(), header.begin(), header.end());
  for (uint16_t h : {0x3c00, 0xc000, 0x7bff, 0x0001, 0xfc00, 0x7e00, 0x0000}) {
    bytes.push_back(static_cast<uint8_t>(h & 0xff));
    bytes.push_back(static_cast<uint8_t>(h >> 8));
  }
  StoredTensor tensor;
  REQUIRE(read_npy_header(bytes, bytes.size(), tensor).ok());
  std::vector<float> out(7);
  REQUIRE(convert_to_float(tensor.dtype, std::span(bytes).subspan(tensor.data_offset, tensor.byte_count), out).ok());
  CHECK(out[0] == 1.0f);
  CHECK(out[1] == -2.0f);
  CHECK(out[2] == 65504.0f);
  CHECK(out[3] == 0x1p-24f);
  CHECK(out[4] == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(out[5]));
  CHECK(out[6] == 0.0f);
}

// A .safetensors file of this header text (padded to 8 bytes) and data_size bytes of data.
std::vector<uint8_t> safetensors_file(std::string header, std::size_t data_size) {
  header.resize((header.size() + 7) / 8 * 8, ' ');
  std::vector<uint8_t> bytes(8 + header.size() + data_size, 0);
  for (std::size_t i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(static_cast<uint64_t>(header.size()) >> (8 * i));
  std::copy(header.begin(), header.end(), bytes.begin() + 8);
  return bytes;
}

TEST_CASE("weight files: a safetensors header's structure is checked, each fault named with its byte", "[weight_files]") {
  const auto refusal = [](const std::string& header, std::size_t data_size) {
    const auto bytes = safetensors_file(header, data_size);
    WeightFileHeader parsed;
    const Status status = read_safetensors_header(bytes, bytes.size(), parsed);
    REQUIRE(status.kind() == ErrorKind::kFormat);
    return status.message();
  };
  const std::string a = R"("a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]})";
  // Data start: 8 + the padded header's length; the messages name the byte where each fault is.
  CHECK(refusal("{" + a + R"(, "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})", 12).find("tensor 'b' overlaps tensor 'a'") != std::string::npos);
  CHECK(refusal("{" + a + R"(, "b": {"dtype": "F32", "shape": [1], "data_offsets": [12, 16]}})", 16).find("bytes 8 to 12 of the data belong to no tensor") != std::string::npos);
  CHECK(refusal("{" + a + "}", 12).find("the last 4 bytes of the data belong to no tensor") != std::string::npos);
  CHECK(refusal(R"({"a": {"dtype": "F32", "shape": [0], "data_offsets": [8, 0]}})", 8).find("out of order") != std::string::npos);
  CHECK(refusal(R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})", 8).find("outside the 8 bytes of data") != std::string::npos);
  CHECK(refusal(R"({"__metadata__": {"n": 1}})", 0).find("__metadata__['n'] is not a string") != std::string::npos);
  const std::string twice = "{" + a + ", " + a + "}";
  const std::string duplicate = refusal(twice, 8);
  CHECK(duplicate.find("the name 'a' appears twice in the header") != std::string::npos);
  CHECK(duplicate.find("(at byte " + std::to_string(8 + twice.find('"', 2 + a.size())) + ")") != std::string::npos);
  // Over the format's 100 MB limit: refused from the length alone, before any header byte is read.
  std::vector<uint8_t> huge(8, 0);
  for (std::size_t i = 0; i < 8; ++i) huge[i] = static_cast<uint8_t>((kMaxSafetensorsHeader + 1) >> (8 * i));
  uint64_t size = 0;
  const Status over = safetensors_header_size(huge, uint64_t{1} << 40, size);
  CHECK(over.message() == "safetensors: the header length 100000001 is over the format's limit of 100000000 bytes (at byte 0)");

  // A dtype posembed does not convert is described, not refused: its tensor alone cannot be read as floats.
  const auto mixed = safetensors_file(R"({"ids": {"dtype": "I64", "shape": [2], "data_offsets": [0, 16]}, "q": {"dtype": "F4", "shape": [1], "data_offsets": [16, 17]}, )" + a.substr(0, 4) +
                                          R"({"dtype": "F32", "shape": [2], "data_offsets": [17, 25]}, "__metadata__": {"format": "pt"}})", 25);
  WeightFileHeader header;
  REQUIRE(read_safetensors_header(mixed, mixed.size(), header).ok());
  REQUIRE(header.tensors.size() == 3);
  CHECK(header.tensors[0].dtype == FileDType::kI64);
  CHECK(header.tensors[1].dtype == FileDType::kOther);
  CHECK(header.tensors[1].dtype_text == "F4");
  CHECK(header.tensors[2].name == "a");
  CHECK(header.metadata == std::vector<std::pair<std::string, std::string>>{{"format", "pt"}});
}

TEST_CASE("weight files: F8 E4M3 and E5M2 convert exactly, every one of their 256 values", "[weight_files]") {
  std::vector<uint8_t> all(256);
  for (int i = 0; i < 256; ++i) all[i] = static_cast<uint8_t>(i);
  std::vector<float> e4m3(256), e5m2(256);
  REQUIRE(convert_to_float(FileDType::kF8E4M3, all, e4m3).ok());
  REQUIRE(convert_to_float(FileDType::kF8E5M2, all, e5m2).ok());
  // E4M3 (fn): largest 448, smallest subnormal 2^-9, S.1111.111 NaN, no infinities.
  CHECK(e4m3[0x7e] == 448.0f);
  CHECK(e4m3[0x01] == 0x1p-9f);
  CHECK(e4m3[0x08] == 0x1p-6f);
  CHECK(e4m3[0x38] == 1.0f);
  CHECK(e4m3[0xb8] == -1.0f);
  CHECK(std::isnan(e4m3[0x7f]));
  CHECK(std::isnan(e4m3[0xff]));
  CHECK(std::count_if(e4m3.begin(), e4m3.end(), [](float v) { return std::isinf(v); }) == 0);
  // E5M2: largest 57344, smallest subnormal 2^-16, infinities and NaN as F16's.
  CHECK(e5m2[0x7b] == 57344.0f);
  CHECK(e5m2[0x01] == 0x1p-16f);
  CHECK(e5m2[0x3c] == 1.0f);
  CHECK(e5m2[0x7c] == std::numeric_limits<float>::infinity());
  CHECK(std::isnan(e5m2[0x7d]));
  // Both orders of magnitude are monotone over the positive codes that are numbers.
  for (int i = 1; i < 0x7f; ++i) CHECK(e4m3[i] > e4m3[i - 1]);
  for (int i = 1; i < 0x7c; ++i) CHECK(e5m2[i] > e5m2[i - 1]);
}

}  // namespace
}  // namespace posembed
