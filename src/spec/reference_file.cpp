#include "spec/reference_file.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>

#include "core/text.h"
#include "gputune/error.h"

namespace gputune {
namespace {

const char* npy_code(ScalarType type) {
  switch (type) {
    case ScalarType::kInt8:
      return "i1";
    case ScalarType::kInt16:
      return "i2";
    case ScalarType::kInt32:
      return "i4";
    case ScalarType::kInt64:
      return "i8";
    case ScalarType::kUint8:
      return "u1";
    case ScalarType::kUint16:
      return "u2";
    case ScalarType::kUint32:
      return "u4";
    case ScalarType::kUint64:
      return "u8";
    case ScalarType::kFloat32:
      return "f4";
    case ScalarType::kFloat64:
      return "f8";
  }
  return "";
}

bool little_endian_machine() {
  const uint16_t one = 1;
  unsigned char first = 0;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

bool is_quote(const std::string& text, size_t at) {
  return at < text.size() && (text[at] == '\'' || text[at] == '"');
}

// The value after the header's 'key': as Python's repr wrote it: a quoted string (quotes kept)
// or one of `words`. Scanned by hand: a header may be 64 KiB.
std::string header_field(const std::string& header, const std::string& key,
                         const std::vector<std::string>& words, const std::string& path) {
  // A string value closes at the next quote of its kind; past the last one none can.
  const size_t last_quote[] = {header.rfind('\''), header.rfind('"')};
  for (size_t at = header.find(key); at != std::string::npos; at = header.find(key, at + 1)) {
    if (at == 0 || !is_quote(header, at - 1) || !is_quote(header, at + key.size())) continue;
    const size_t colon = skip_spaces(header, at + key.size() + 1);
    if (colon >= header.size() || header[colon] != ':') continue;
    const size_t value = skip_spaces(header, colon + 1);
    if (words.empty() && is_quote(header, value)) {
      const size_t last = last_quote[header[value] == '"' ? 1 : 0];
      if (last > value) {
        return header.substr(value, header.find(header[value], value + 1) - value + 1);
      }
    }
    for (const std::string& word : words) {
      if (header.compare(value, word.size(), word) == 0) return word;
    }
  }
  throw Error(ErrorCode::kSpec, path + ": the .npy header has no '" + key +
                                    "'; expected a file written by numpy.save");
}

// The data of a .npy file (format versions 1 to 3), in the machine's byte order.
std::vector<unsigned char> npy_data(const std::vector<unsigned char>& file, ScalarType type,
                                    const std::string& path) {
  static const unsigned char kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  auto malformed = [&](const std::string& why) {
    return Error(ErrorCode::kSpec,
                 path + ": not a .npy file (" + why + "); expected a file written by numpy.save");
  };
  if (file.size() < 10 || !std::equal(std::begin(kMagic), std::end(kMagic), file.begin())) {
    throw malformed("no NumPy magic string");
  }
  const int major = file[6];
  if (major < 1 || major > 3) throw malformed("format version " + std::to_string(major));
  const size_t length_bytes = major == 1 ? 2 : 4;
  if (file.size() < 8 + length_bytes) throw malformed("no header length");
  size_t header_length = 0;
  for (size_t i = 0; i < length_bytes; ++i) header_length |= size_t{file[8 + i]} << (8 * i);
  const size_t data_start = 8 + length_bytes + header_length;
  if (data_start > file.size()) throw malformed("the header is longer than the file");
  const std::string header(file.begin() + 8 + length_bytes, file.begin() + data_start);

  const std::string descr = header_field(header, "descr", {}, path);
  const std::string code = descr.substr(1, descr.size() - 2);
  const std::string expected = npy_code(type);
  if (code.size() != 3 || code.substr(1) != expected ||
      std::string("<>|=").find(code[0]) == std::string::npos) {
    throw Error(ErrorCode::kSpec, path + ": the .npy dtype is '" + code + "', the output is " +
                                      type_name(type) + "; expected dtype '<" + expected +
                                      "' (numpy: array.astype(np." + type_name(type) + "))");
  }
  if (header_field(header, "fortran_order", {"True", "False"}, path) == "True") {
    throw Error(ErrorCode::kSpec, path +
                                      ": the .npy array is in Fortran order; expected C order "
                                      "(numpy: np.ascontiguousarray(array))");
  }
  std::vector<unsigned char> data(file.begin() + data_start, file.end());
  const size_t width = size_of(type);
  const bool swapped = width > 1 && ((code[0] == '<' && !little_endian_machine()) ||
                                     (code[0] == '>' && little_endian_machine()));
  if (swapped) {
    for (size_t i = 0; i + width <= data.size(); i += width) {
      std::reverse(data.begin() + i, data.begin() + i + width);
    }
  }
  return data;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

SharedBytes read_reference_file(const std::string& path, ScalarType type) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(ErrorCode::kIo, "cannot read '" + path +
                                    "'; expected a .npy file or raw data, the path relative to "
                                    "the spec file");
  }
  std::vector<unsigned char> file((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
  return reference_from_bytes(std::move(file), path, type);
}

SharedBytes reference_from_bytes(std::vector<unsigned char> file, const std::string& path,
                                 ScalarType type) {
  if (ends_with(path, ".npy")) file = npy_data(file, type, path);
  return std::make_shared<const std::vector<unsigned char>>(std::move(file));
}

}  // namespace gputune
