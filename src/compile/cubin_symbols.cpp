#include "compile/cubin_symbols.h"

#include <algorithm>
#include <cstring>

namespace gputune {
namespace {

constexpr uint32_t kSymbolTable = 2;  // SHT_SYMTAB
constexpr size_t kSectionHeaderBytes = 64, kSymbolBytes = 24;

// Little-endian fields at byte offsets, bounds-checked: false past the end.
template <typename T>
bool read_at(const std::string& image, uint64_t offset, T* out) {
  if (offset > image.size() || image.size() - offset < sizeof(T)) return false;
  std::memcpy(out, image.data() + offset, sizeof(T));
  return true;
}

struct Section {
  uint32_t type = 0, link = 0;
  uint64_t offset = 0, size = 0;
};

bool read_section(const std::string& image, uint64_t headers, uint16_t index, Section* out) {
  const uint64_t at = headers + uint64_t{index} * kSectionHeaderBytes;
  return read_at(image, at + 4, &out->type) && read_at(image, at + 24, &out->offset) &&
         read_at(image, at + 32, &out->size) && read_at(image, at + 40, &out->link);
}

}  // namespace

int64_t cubin_symbol_bytes(const std::string& cubin, const std::string& name) {
  if (cubin.size() < 64 ||
      cubin.compare(0, 4,
                    "\x7f"
                    "ELF") != 0 ||
      cubin[4] != 2)
    return -1;
  uint64_t headers = 0;
  uint16_t count = 0;
  if (!read_at(cubin, 0x28, &headers) || !read_at(cubin, 0x3C, &count)) return -1;
  for (uint16_t s = 0; s < count; ++s) {
    Section symbols, strings;
    if (!read_section(cubin, headers, s, &symbols) || symbols.type != kSymbolTable) continue;
    if (symbols.link >= count || !read_section(cubin, headers, symbols.link, &strings)) continue;
    for (uint64_t at = symbols.offset; at + kSymbolBytes <= symbols.offset + symbols.size;
         at += kSymbolBytes) {
      uint32_t name_offset = 0;
      uint64_t size = 0;
      if (!read_at(cubin, at, &name_offset) || !read_at(cubin, at + 16, &size)) return -1;
      const uint64_t begin = strings.offset + name_offset;
      if (name_offset >= strings.size || begin >= cubin.size()) continue;
      const char* text = cubin.data() + begin;
      const size_t limit = std::min<uint64_t>(cubin.size() - begin, strings.size - name_offset);
      if (strnlen(text, limit) == name.size() &&
          name.compare(0, name.size(), text, name.size()) == 0) {
        return static_cast<int64_t>(size);
      }
    }
  }
  return -1;
}

}  // namespace gputune
