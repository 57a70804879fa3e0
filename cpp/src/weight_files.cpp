#include "posembed/weight_files.hpp"

#include "posembed/stored_table.hpp"
#include "bits.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>

#include <nlohmann/json.hpp>

namespace posembed {
namespace {

// Any count above this cannot be held anyway (and count * 8 bytes cannot overflow).
constexpr uint64_t kMaxElements = std::numeric_limits<uint64_t>::max() / 8;

using detail::bits_as;

Status malformed(std::string_view format, uint64_t offset, const std::string& what) {
  return Status::format_error(std::string(format) + ": " + what + " (at byte " + std::to_string(offset) + ")");
}

uint64_t read_le(std::span<const uint8_t> bytes) {
  uint64_t value = 0;
  for (std::size_t i = bytes.size(); i-- > 0;) value = (value << 8) | bytes[i];
  return value;
}

// Product of the shape, or nullopt when it overflows or exceeds kMaxElements.
std::optional<uint64_t> element_count(const std::vector<int64_t>& shape) {
  uint64_t count = 1;
  for (int64_t n : shape) {
    if (n < 0) return std::nullopt;
    if (n != 0 && count > kMaxElements / static_cast<uint64_t>(n)) return std::nullopt;
    count *= static_cast<uint64_t>(n);
  }
  return count;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

// The npy header is a Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }.
class NpyHeaderParser {
 public:
  NpyHeaderParser(std::string_view text, std::size_t file_offset) : text_(text), file_offset_(file_offset) {}

  Status parse(std::string& descr, bool& fortran_order, std::vector<int64_t>& shape) {
    bool has_descr = false, has_order = false, has_shape = false;
    skip_space();
    if (!consume('{')) return error("the header does not start with '{'");
    while (true) {
      skip_space();
      if (consume('}')) break;
      std::string key;
      POSEMBED_RETURN_IF_ERROR(string_literal(key));
      skip_space();
      if (!consume(':')) return error("expected ':' after '" + key + "'");
      skip_space();
      if (key == "descr") {
        POSEMBED_RETURN_IF_ERROR(string_literal(descr));
        has_descr = true;
      } else if (key == "fortran_order") {
        POSEMBED_RETURN_IF_ERROR(boolean(fortran_order));
        has_order = true;
      } else if (key == "shape") {
        POSEMBED_RETURN_IF_ERROR(tuple(shape));
        has_shape = true;
      } else {
        return error("unexpected key '" + key + "'");
      }
      skip_space();
      if (consume('}')) break;
      if (!consume(',')) return error("expected ',' or '}'");
    }
    if (!has_descr || !has_order || !has_shape) return error("the header lacks one of 'descr', 'fortran_order', 'shape'");
    return {};
  }

 private:
  Status error(const std::string& what) const { return malformed("npy", file_offset_ + position_, what); }
  void skip_space() {
    while (position_ < text_.size() && (text_[position_] == ' ' || text_[position_] == '\n' || text_[position_] == '\t')) ++position_;
  }
  bool consume(char c) {
    if (position_ < text_.size() && text_[position_] == c) {
      ++position_;
      return true;
    }
    return false;
  }
  Status string_literal(std::string& out) {
    if (position_ >= text_.size() || (text_[position_] != '\'' && text_[position_] != '"')) return error("expected a quoted string");
    const char quote = text_[position_++];
    const std::size_t end = text_.find(quote, position_);
    if (end == std::string_view::npos) return error("unterminated string");
    out.assign(text_.substr(position_, end - position_));
    position_ = end + 1;
    return {};
  }
  Status boolean(bool& out) {
    if (text_.substr(position_, 4) == "True") {
      out = true;
      position_ += 4;
    } else if (text_.substr(position_, 5) == "False") {
      out = false;
      position_ += 5;
    } else {
      return error("expected True or False");
    }
    return {};
  }
  Status tuple(std::vector<int64_t>& out) {
    if (!consume('(')) return error("expected '(' to open the shape");
    while (true) {
      skip_space();
      if (consume(')')) return {};
      int64_t value = 0;
      const std::size_t start = position_;
      while (position_ < text_.size() && text_[position_] >= '0' && text_[position_] <= '9') {
        if (value > (int64_t{1} << 50)) return error("a dimension of the shape is too large");
        value = value * 10 + (text_[position_++] - '0');
      }
      if (position_ == start) return error("expected a dimension in the shape");
      out.push_back(value);
      skip_space();
      if (consume(')')) return {};
      if (!consume(',')) return error("expected ',' or ')' in the shape");
    }
  }

  std::string_view text_;
  std::size_t file_offset_;
  std::size_t position_ = 0;
};

// Records where a JSON text stops being JSON; every other event is accepted.
struct JsonErrorPosition : nlohmann::json_sax<nlohmann::json> {
  std::size_t position = 0;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t at, const std::string&, const nlohmann::detail::exception&) override {
    position = at;
    return false;
  }
};

template <class Convert>
void convert_each(std::span<const uint8_t> bytes, std::size_t size, std::span<float> out, Convert convert) {
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = convert(bytes.subspan(i * size, size));
}

struct DTypeName {
  FileDType dtype;
  const char* name;
  std::size_t size;
  const char* npy;  // NumPy's little-endian descr, or nullptr
};
constexpr DTypeName kDTypes[] = {
    {FileDType::kF64, "F64", 8, "<f8"}, {FileDType::kF32, "F32", 4, "<f4"}, {FileDType::kF16, "F16", 2, "<f2"},
    {FileDType::kBF16, "BF16", 2, nullptr}, {FileDType::kF8E4M3, "F8_E4M3", 1, nullptr}, {FileDType::kF8E5M2, "F8_E5M2", 1, nullptr},
    {FileDType::kI64, "I64", 8, "<i8"}, {FileDType::kI32, "I32", 4, "<i4"}, {FileDType::kI16, "I16", 2, "<i2"}, {FileDType::kI8, "I8", 1, "|i1"},
    {FileDType::kU64, "U64", 8, "<u8"}, {FileDType::kU32, "U32", 4, "<u4"}, {FileDType::kU16, "U16", 2, "<u2"}, {FileDType::kU8, "U8", 1, "|u1"},
    {FileDType::kBool, "BOOL", 1, "|b1"},
};

const DTypeName* find_dtype(FileDType dtype) {
  for (const auto& entry : kDTypes) if (entry.dtype == dtype) return &entry;
  return nullptr;
}

// The tensors' bytes tile the data exactly: sorted by offset, each begins where the one before ends, and the last
// ends where the file does. An overlap, a hole or trailing bytes are each named with where they are.
Status check_tiling(std::vector<StoredTensor>& tensors, uint64_t data_start, uint64_t data_size) {
  std::stable_sort(tensors.begin(), tensors.end(), [](const StoredTensor& a, const StoredTensor& b) {
    return a.data_offset != b.data_offset ? a.data_offset < b.data_offset : a.byte_count < b.byte_count;
  });
  uint64_t expected = data_start;
  const StoredTensor* previous = nullptr;
  for (const auto& tensor : tensors) {
    if (tensor.data_offset < expected) {
      return malformed("safetensors", tensor.data_offset, "tensor '" + tensor.name + "' overlaps tensor '" + previous->name + "': its data begins " +
                                                              std::to_string(expected - tensor.data_offset) + " bytes before the other's ends");
    }
    if (tensor.data_offset > expected) {
      return malformed("safetensors", expected, "bytes " + std::to_string(expected - data_start) + " to " + std::to_string(tensor.data_offset - data_start) +
                                                    " of the data belong to no tensor (a hole before tensor '" + tensor.name + "')");
    }
    expected = tensor.data_offset + tensor.byte_count;
    previous = &tensor;
  }
  if (expected != data_start + data_size) {
    return malformed("safetensors", expected, "the last " + std::to_string(data_start + data_size - expected) + " bytes of the data belong to no tensor");
  }
  return {};
}

// Where a top-level key first appears a second time in the header text (the byte offset), for a duplicate name.
std::size_t second_occurrence(std::string_view text, const std::string& key, std::size_t header_offset) {
  const std::string quoted = nlohmann::json(key).dump();
  const std::size_t first = text.find(quoted);
  const std::size_t second = first == std::string_view::npos ? first : text.find(quoted, first + quoted.size());
  return header_offset + (second == std::string_view::npos ? 0 : second);
}

}  // namespace

const char* dtype_name(FileDType dtype) {
  const auto* entry = find_dtype(dtype);
  return entry ? entry->name : "other";
}

FileDType dtype_from_name(std::string_view name) {
  for (const auto& entry : kDTypes) if (name == entry.name) return entry.dtype;
  return FileDType::kOther;
}

std::size_t element_size(FileDType dtype) {
  const auto* entry = find_dtype(dtype);
  return entry ? entry->size : 0;
}

bool is_float(FileDType dtype) {
  switch (dtype) {
    case FileDType::kF64: case FileDType::kF32: case FileDType::kF16: case FileDType::kBF16: case FileDType::kF8E4M3: case FileDType::kF8E5M2:
      return true;
    default:
      return false;
  }
}

Status npy_header_size(std::span<const uint8_t> first, uint64_t file_size, uint64_t& size) {
  static constexpr uint8_t kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (first.size() < 10 || !std::equal(std::begin(kMagic), std::end(kMagic), first.begin())) {
    return malformed("npy", 0, "not an .npy file: it does not start with \\x93NUMPY");
  }
  const uint8_t major = first[6];
  if (major < 1 || major > 3) return malformed("npy", 6, "format version " + std::to_string(major) + " is not 1, 2 or 3");
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  const std::size_t header_start = 8 + length_bytes;
  if (first.size() < header_start) return malformed("npy", 8, "the file ends inside the header length");
  const auto header_length = read_le(first.subspan(8, length_bytes));
  if (header_length > file_size - header_start) {
    return malformed("npy", 8, "the header length " + std::to_string(header_length) + " runs past the end of the file (" + std::to_string(file_size) + " bytes)");
  }
  size = header_start + header_length;
  return {};
}

Status read_npy_header(std::span<const uint8_t> start, uint64_t file_size, StoredTensor& tensor) {
  uint64_t header_end = 0;
  POSEMBED_RETURN_IF_ERROR(npy_header_size(start, file_size, header_end));
  if (start.size() < header_end) return malformed("npy", start.size(), "the header needs the first " + std::to_string(header_end) + " bytes");
  const std::size_t header_start = start[6] == 1 ? 10 : 12;
  // (header_end is at most start.size(), checked above: it fits a size_t on 32-bit targets too.)
  const std::string_view header(reinterpret_cast<const char*>(start.data() + header_start), static_cast<std::size_t>(header_end) - header_start);
  tensor = {};
  POSEMBED_RETURN_IF_ERROR(NpyHeaderParser(header, header_start).parse(tensor.dtype_text, tensor.fortran_order, tensor.shape));
  tensor.dtype = FileDType::kOther;
  for (const auto& entry : kDTypes) {
    const std::string_view descr = tensor.dtype_text;
    // One-byte types carry no byte order: NumPy writes '|', and '<' means the same.
    if (entry.npy && (descr == entry.npy || (entry.size == 1 && descr.size() == 3 && descr[0] == '<' && descr.substr(1) == entry.npy + 1))) tensor.dtype = entry.dtype;
  }
  if (tensor.dtype == FileDType::kOther) {
    return malformed("npy", header_start, "dtype '" + tensor.dtype_text +
                                              "' is not supported (posembed reads little-endian numbers: <f8, <f4, <f2, <i8, <i4, <i2, |i1, <u8, <u4, <u2, |u1, |b1)");
  }
  const auto count = element_count(tensor.shape);
  if (!count) return malformed("npy", header_start, "the shape " + shape_text(tensor.shape) + " is too large");
  tensor.element_count = *count;
  tensor.byte_count = *count * element_size(tensor.dtype);
  tensor.data_offset = header_end;
  const uint64_t payload = file_size - header_end;
  if (payload < tensor.byte_count) {
    return malformed("npy", tensor.data_offset, "the data is " + std::to_string(payload) + " bytes, shorter than the " + std::to_string(tensor.byte_count) +
                                                    " bytes the shape " + shape_text(tensor.shape) + " needs");
  }
  return {};
}

Status safetensors_header_size(std::span<const uint8_t> first, uint64_t file_size, uint64_t& size) {
  if (first.size() < kSafetensorsPreamble || file_size < kSafetensorsPreamble) return malformed("safetensors", 0, "the file is shorter than its 8-byte header length");
  const uint64_t header_length = read_le(first.first(8));
  if (header_length > kMaxSafetensorsHeader) {
    return malformed("safetensors", 0, "the header length " + std::to_string(header_length) + " is over the format's limit of " + std::to_string(kMaxSafetensorsHeader) + " bytes");
  }
  if (header_length > file_size - 8) {
    return malformed("safetensors", 0, "the header length " + std::to_string(header_length) + " runs past the end of the file (" + std::to_string(file_size) + " bytes)");
  }
  size = 8 + header_length;
  return {};
}

Status read_safetensors_header(std::span<const uint8_t> start, uint64_t file_size, WeightFileHeader& result) {
  result = {};
  uint64_t data_start = 0;
  POSEMBED_RETURN_IF_ERROR(safetensors_header_size(start, file_size, data_start));
  if (start.size() < data_start) return malformed("safetensors", start.size(), "the header needs the first " + std::to_string(data_start) + " bytes");
  const auto* header_begin = start.data() + 8;
  const auto* header_end = start.data() + data_start;
  // Top-level names as they come, to find a repeated one (a JSON object keeps only the last of equal keys).
  std::vector<std::string> names;
  const auto note_names = [&names](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    if (depth == 1 && event == nlohmann::json::parse_event_t::key) names.push_back(parsed.get<std::string>());
    return true;
  };
  const nlohmann::json header = nlohmann::json::parse(header_begin, header_end, note_names, /*allow_exceptions=*/false);
  if (header.is_discarded()) {
    JsonErrorPosition sax;
    nlohmann::json::sax_parse(header_begin, header_end, &sax);
    return malformed("safetensors", 8 + (sax.position > 0 ? sax.position - 1 : 0), "the header is not valid JSON");
  }
  if (!header.is_object()) return malformed("safetensors", 8, "the header is not a JSON object");
  if (names.size() != header.size()) {
    std::sort(names.begin(), names.end());
    const auto repeated = std::adjacent_find(names.begin(), names.end());
    const std::string_view text(reinterpret_cast<const char*>(header_begin), static_cast<std::size_t>(header_end - header_begin));
    return malformed("safetensors", second_occurrence(text, *repeated, 8), "the name '" + *repeated + "' appears twice in the header");
  }
  const uint64_t data_size = file_size - data_start;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object()) return malformed("safetensors", 8, "__metadata__ is not a JSON object of strings");
      for (const auto& [key, value] : entry.items()) {
        if (!value.is_string()) return malformed("safetensors", 8, "__metadata__['" + key + "'] is not a string (the format's metadata holds only strings)");
        result.metadata.emplace_back(key, value.get<std::string>());
      }
      continue;
    }
    const std::string where = "tensor '" + name + "'";
    if (!entry.is_object()) return malformed("safetensors", 8, where + " is not a JSON object");
    const auto dtype = entry.find("dtype");
    const auto shape = entry.find("shape");
    const auto offsets = entry.find("data_offsets");
    if (dtype == entry.end() || !dtype->is_string() || shape == entry.end() || !shape->is_array() || offsets == entry.end() ||
        !offsets->is_array() || offsets->size() != 2) {
      return malformed("safetensors", 8, where + " needs \"dtype\" (a string), \"shape\" (an array) and \"data_offsets\" ([begin, end])");
    }
    StoredTensor tensor;
    tensor.name = name;
    tensor.dtype_text = dtype->get<std::string>();
    tensor.dtype = dtype_from_name(tensor.dtype_text);
    for (const auto& n : *shape) {
      if (!n.is_number_unsigned()) return malformed("safetensors", 8, where + " has a shape entry that is not a non-negative integer");
      tensor.shape.push_back(static_cast<int64_t>(std::min<uint64_t>(n.get<uint64_t>(), uint64_t{1} << 62)));
    }
    if (!(*offsets)[0].is_number_unsigned() || !(*offsets)[1].is_number_unsigned()) {
      return malformed("safetensors", 8, where + " has data_offsets that are not non-negative integers");
    }
    const uint64_t begin = (*offsets)[0].get<uint64_t>();
    const uint64_t end = (*offsets)[1].get<uint64_t>();
    const std::string range = "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
    if (begin > end) return malformed("safetensors", 8, where + " has data_offsets " + range + " out of order (its data would end before it begins)");
    if (end > data_size) {
      return malformed("safetensors", data_start + std::min(begin, data_size),
                       where + " has data_offsets " + range + " outside the " + std::to_string(data_size) + " bytes of data");
    }
    const auto count = element_count(tensor.shape);
    if (!count) return malformed("safetensors", 8, where + " has shape " + shape_text(tensor.shape) + ", too large");
    // A dtype posembed does not know is kept (its bytes are the file's); only reading that tensor is refused.
    if (tensor.dtype != FileDType::kOther && *count * element_size(tensor.dtype) != end - begin) {
      return malformed("safetensors", data_start + begin,
                       where + " has shape " + shape_text(tensor.shape) + " of " + tensor.dtype_text + ", which does not fit its " + std::to_string(end - begin) + " bytes");
    }
    tensor.element_count = *count;
    tensor.byte_count = end - begin;
    tensor.data_offset = data_start + begin;
    result.tensors.push_back(std::move(tensor));
  }
  return check_tiling(result.tensors, data_start, data_size);
}

Status convert_to_float(FileDType dtype, std::span<const uint8_t> bytes, std::span<float> out) {
  if (!is_float(dtype)) return Status::range_error(std::string("dtype ") + dtype_name(dtype) + " is not a float type");
  const std::size_t size = element_size(dtype);
  if (bytes.size() != out.size() * size) return output_size_error(bytes.size() / size, out.size());
  if (dtype == FileDType::kF64) {
    convert_each(bytes, size, out, [](auto b) { return static_cast<float>(bits_as<double>(read_le(b))); });
  } else {
    widen_values(dtype, bytes.data(), out.size(), out.data());  // every other float dtype is a table's
  }
  return {};
}

}  // namespace posembed
