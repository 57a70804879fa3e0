#include "posembed/weight_files.hpp"

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

// Reads every tensor of a file; the first failure's status otherwise.
Status read_all(const std::vector<uint8_t>& bytes, bool npy, std::vector<StoredTensor>& tensors, std::vector<std::vector<float>>& data) {
  tensors.clear();
  data.clear();
  if (npy) {
    tensors.emplace_back();
    POSEMBED_RETURN_IF_ERROR(read_npy_header(bytes, tensors.back()));
  } else {
    POSEMBED_RETURN_IF_ERROR(read_safetensors_header(bytes, tensors));
  }
  for (const auto& tensor : tensors) {
    data.emplace_back(tensor.element_count);
    POSEMBED_RETURN_IF_ERROR(read_tensor_data(bytes, tensor, data.back()));
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
  REQUIRE(read_npy_header(bytes, tensor).ok());
  std::vector<float> out(7);
  REQUIRE(read_tensor_data(bytes, tensor, out).ok());
  CHECK(out[0] == 1.0f);
  CHECK(out[1] == -2.0f);
  CHECK(out[2] == 65504.0f);
  CHECK(out[3] == 0x1p-24f);
  CHECK(out[4] == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(out[5]));
  CHECK(out[6] == 0.0f);
}

}  // namespace
}  // namespace posembed
