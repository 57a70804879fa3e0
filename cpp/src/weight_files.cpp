#include "posembed/weight_files.hpp"

#include <algorithm>
#include <limits>
#include <cstring>
#include <string_view>

#include <nlohmann/json.hpp>

namespace posembed {
namespace {

// Any count above this cannot be held anyway (and count * 8 bytes cannot overflow).
constexpr std::size_t kMaxElements = std::numeric_limits<std::size_t>::max() / 8;

// std::bit_cast is missing from the libc++ of Emscripten 3.1.6.
template <class To, class From>
To bits_as(From from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

Status malformed(std::string_view format, std::size_t offset, const std::string& what) {
  return Status::format_error(std::string(format) + ": " + what + " (at byte " + std::to_string(offset) + ")");
}

std::size_t element_size(FileDType dtype) {
  switch (dtype) {
    case FileDType::kF32: return 4;
    case FileDType::kF16:
    case FileDType::kBF16: return 2;
    case FileDType::kF64: return 8;
  }
  return 4;
}

uint64_t read_le(std::span<const uint8_t> bytes) {
  uint64_t value = 0;
  for (std::size_t i = bytes.size(); i-- > 0;) value = (value << 8) | bytes[i];
  return value;
}

// Product of the shape, or nullopt when it overflows or exceeds kMaxElements.
std::optional<std::size_t> element_count(const std::vector<int64_t>& shape) {
  std::size_t count = 1;
  for (int64_t n : shape) {
    if (n < 0) return std::nullopt;
    if (n != 0 && count > kMaxElements / static_cast<std::size_t>(n)) return std::nullopt;
    count *= static_cast<std::size_t>(n);
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

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  uint32_t bits = 0;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);  // inf, nan
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa != 0) {
    int shift = 0;  // subnormal: normalise
    while (!(mantissa & 0x400u)) {
      mantissa <<= 1;
      ++shift;
    }
    bits = sign | (static_cast<uint32_t>(113 - shift) << 23) | ((mantissa & 0x3ffu) << 13);
  } else {
    bits = sign;
  }
  return bits_as<float>(bits);
}

float element_at(const uint8_t* p, FileDType dtype) {
  switch (dtype) {
    case FileDType::kF32: return bits_as<float>(static_cast<uint32_t>(read_le({p, 4})));
    case FileDType::kF16: return half_to_float(static_cast<uint16_t>(read_le({p, 2})));
    case FileDType::kBF16: return bits_as<float>(static_cast<uint32_t>(read_le({p, 2})) << 16);
    case FileDType::kF64: return static_cast<float>(bits_as<double>(read_le({p, 8})));
  }
  return 0.0f;
}

}  // namespace

Status read_npy_header(std::span<const uint8_t> file, StoredTensor& tensor) {
  static constexpr uint8_t kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (file.size() < 10 || !std::equal(std::begin(kMagic), std::end(kMagic), file.begin())) {
    return malformed("npy", 0, "not an .npy file: it does not start with \\x93NUMPY");
  }
  const uint8_t major = file[6];
  if (major < 1 || major > 3) return malformed("npy", 6, "format version " + std::to_string(major) + " is not 1, 2 or 3");
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  const std::size_t header_start = 8 + length_bytes;
  if (file.size() < header_start) return malformed("npy", 8, "the file ends inside the header length");
  const auto header_length = static_cast<std::size_t>(read_le(file.subspan(8, length_bytes)));
  if (header_length > file.size() - header_start) {
    return malformed("npy", 8, "the header length " + std::to_string(header_length) + " runs past the end of the file (" + std::to_string(file.size()) + " bytes)");
  }
  const std::string_view header(reinterpret_cast<const char*>(file.data() + header_start), header_length);
  std::string descr;
  tensor = {};
  POSEMBED_RETURN_IF_ERROR(NpyHeaderParser(header, header_start).parse(descr, tensor.fortran_order, tensor.shape));
  if (descr == "<f4") tensor.dtype = FileDType::kF32;
  else if (descr == "<f2") tensor.dtype = FileDType::kF16;
  else if (descr == "<f8") tensor.dtype = FileDType::kF64;
  else return malformed("npy", header_start, "dtype '" + descr + "' is not supported (posembed reads little-endian floats: <f4, <f2, <f8)");
  const auto count = element_count(tensor.shape);
  if (!count) return malformed("npy", header_start, "the shape " + shape_text(tensor.shape) + " is too large");
  tensor.element_count = *count;
  tensor.data_offset = header_start + header_length;
  const std::size_t payload = file.size() - tensor.data_offset;
  const std::size_t needed = *count * element_size(tensor.dtype);
  if (payload < needed) {
    return malformed("npy", tensor.data_offset, "the data is " + std::to_string(payload) + " bytes, shorter than the " + std::to_string(needed) +
                                                    " bytes the shape " + shape_text(tensor.shape) + " needs");
  }
  return {};
}

Status read_safetensors_header(std::span<const uint8_t> file, std::vector<StoredTensor>& tensors) {
  tensors.clear();
  if (file.size() < 8) return malformed("safetensors", 0, "the file is shorter than its 8-byte header length");
  const uint64_t header_length = read_le(file.first(8));
  if (header_length > file.size() - 8) {
    return malformed("safetensors", 0, "the header length " + std::to_string(header_length) + " runs past the end of the file (" + std::to_string(file.size()) + " bytes)");
  }
  const auto* header_begin = file.data() + 8;
  const auto* header_end = header_begin + header_length;
  const nlohmann::json header = nlohmann::json::parse(header_begin, header_end, nullptr, /*allow_exceptions=*/false);
  if (header.is_discarded()) {
    JsonErrorPosition sax;
    nlohmann::json::sax_parse(header_begin, header_end, &sax);
    return malformed("safetensors", 8 + (sax.position > 0 ? sax.position - 1 : 0), "the header is not valid JSON");
  }
  if (!header.is_object()) return malformed("safetensors", 8, "the header is not a JSON object");
  const std::size_t data_start = 8 + static_cast<std::size_t>(header_length);
  const std::size_t data_size = file.size() - data_start;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
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
    const auto& type = dtype->get_ref<const std::string&>();
    if (type == "F32") tensor.dtype = FileDType::kF32;
    else if (type == "F16") tensor.dtype = FileDType::kF16;
    else if (type == "BF16") tensor.dtype = FileDType::kBF16;
    else return malformed("safetensors", 8, where + " has dtype '" + type + "', which is not supported (F32, F16, BF16)");
    for (const auto& n : *shape) {
      if (!n.is_number_unsigned()) return malformed("safetensors", 8, where + " has a shape entry that is not a non-negative integer");
      tensor.shape.push_back(static_cast<int64_t>(std::min<uint64_t>(n.get<uint64_t>(), uint64_t{1} << 62)));
    }
    if (!(*offsets)[0].is_number_unsigned() || !(*offsets)[1].is_number_unsigned()) {
      return malformed("safetensors", 8, where + " has data_offsets that are not non-negative integers");
    }
    const uint64_t begin = (*offsets)[0].get<uint64_t>();
    const uint64_t end = (*offsets)[1].get<uint64_t>();
    if (begin > end || end > data_size) {
      return malformed("safetensors", data_start, where + " has data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                                                      "] outside the " + std::to_string(data_size) + " bytes of data");
    }
    const auto count = element_count(tensor.shape);
    if (!count || *count * element_size(tensor.dtype) != end - begin) {
      return malformed("safetensors", data_start + static_cast<std::size_t>(begin),
                       where + " has shape " + shape_text(tensor.shape) + " of " + type + ", which does not fit its " + std::to_string(end - begin) + " bytes");
    }
    tensor.element_count = *count;
    tensor.data_offset = data_start + static_cast<std::size_t>(begin);
    tensors.push_back(std::move(tensor));
  }
  std::sort(tensors.begin(), tensors.end(), [](const StoredTensor& a, const StoredTensor& b) { return a.data_offset < b.data_offset; });
  return {};
}

Status read_tensor_data(std::span<const uint8_t> file, const StoredTensor& tensor, std::span<float> out) {
  const std::size_t size = element_size(tensor.dtype);
  if (tensor.data_offset > file.size() || tensor.element_count > (file.size() - tensor.data_offset) / size) {
    return malformed("weights", tensor.data_offset, "the tensor's data runs past the end of the file");
  }
  if (out.size() != tensor.element_count) return output_size_error(tensor.element_count, out.size());
  const uint8_t* data = file.data() + tensor.data_offset;
  if (!tensor.fortran_order || tensor.shape.size() < 2) {
    if (tensor.dtype == FileDType::kF32) {
      if (!out.empty()) std::memcpy(out.data(), data, out.size() * sizeof(float));  // both little-endian: a copy
    } else {
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = element_at(data + i * size, tensor.dtype);
    }
    return {};
  }
  // Column-major payload: walk the row-major output and step through the file by Fortran strides.
  const std::size_t rank = tensor.shape.size();
  std::vector<std::size_t> stride(rank), index(rank, 0);
  std::size_t s = 1;
  for (std::size_t axis = 0; axis < rank; ++axis) {
    stride[axis] = s;
    s *= static_cast<std::size_t>(tensor.shape[axis]);
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::size_t source = 0;
    for (std::size_t axis = 0; axis < rank; ++axis) source += index[axis] * stride[axis];
    out[i] = element_at(data + source * size, tensor.dtype);
    for (std::size_t axis = rank; axis-- > 0;) {
      if (++index[axis] < static_cast<std::size_t>(tensor.shape[axis])) break;
      index[axis] = 0;
    }
  }
  return {};
}

}  // namespace posembed
