#include "compile/cubin_symbols.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

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
  uint32_t name = 0, type = 0, link = 0;
  uint64_t offset = 0, size = 0;
};

bool read_section(const std::string& image, uint64_t headers, uint16_t index, Section* out) {
  const uint64_t at = headers + uint64_t{index} * kSectionHeaderBytes;
  return read_at(image, at, &out->name) && read_at(image, at + 4, &out->type) &&
         read_at(image, at + 24, &out->offset) && read_at(image, at + 32, &out->size) &&
         read_at(image, at + 40, &out->link);
}

// Whether the NUL-terminated string at `offset` of the string table `strings` is `text`.
bool string_is(const std::string& image, const Section& strings, uint32_t offset,
               const std::string& text) {
  const uint64_t begin = strings.offset + offset;
  if (offset >= strings.size || begin >= image.size()) return false;
  const char* at = image.data() + begin;
  const size_t limit = std::min<uint64_t>(image.size() - begin, strings.size - offset);
  return strnlen(at, limit) == text.size() && text.compare(0, text.size(), at, text.size()) == 0;
}

// An ELF64 image's section headers, or none for anything else.
std::vector<Section> sections_of(const std::string& image, Section* names) {
  if (image.size() < 64 ||
      image.compare(0, 4,
                    "\x7f"
                    "ELF") != 0 ||
      image[4] != 2)
    return {};
  uint64_t headers = 0;
  uint16_t count = 0, names_index = 0;
  if (!read_at(image, 0x28, &headers) || !read_at(image, 0x3C, &count) ||
      !read_at(image, 0x3E, &names_index)) {
    return {};
  }
  std::vector<Section> sections(count);
  for (uint16_t s = 0; s < count; ++s) {
    if (!read_section(image, headers, s, &sections[s])) return {};
  }
  if (names_index >= count) return {};
  *names = sections[names_index];
  return sections;
}

// Index and size of the symbol `name`, or nullopt.
std::optional<std::pair<uint32_t, uint64_t>> find_symbol(const std::string& image,
                                                         const std::vector<Section>& sections,
                                                         const std::string& name) {
  for (const Section& symbols : sections) {
    if (symbols.type != kSymbolTable || symbols.link >= sections.size()) continue;
    const Section& strings = sections[symbols.link];
    uint32_t index = 0;
    for (uint64_t at = symbols.offset; at + kSymbolBytes <= symbols.offset + symbols.size;
         at += kSymbolBytes, ++index) {
      uint32_t name_offset = 0;
      uint64_t size = 0;
      if (!read_at(image, at, &name_offset) || !read_at(image, at + 16, &size)) return {};
      if (string_is(image, strings, name_offset, name)) return std::make_pair(index, size);
    }
  }
  return std::nullopt;
}

const Section* section_named(const std::string& image, const std::vector<Section>& sections,
                             const Section& names, const std::string& name) {
  for (const Section& section : sections) {
    if (string_is(image, names, section.name, name)) return &section;
  }
  return nullptr;
}

}  // namespace

int64_t cubin_symbol_bytes(const std::string& cubin, const std::string& name) {
  Section names;
  const auto symbol = find_symbol(cubin, sections_of(cubin, &names), name);
  return symbol ? static_cast<int64_t>(symbol->second) : -1;
}

int cubin_registers(const std::string& cubin, const std::string& function) {
  Section names;
  const std::vector<Section> sections = sections_of(cubin, &names);
  const auto symbol = find_symbol(cubin, sections, function);
  const Section* info = section_named(cubin, sections, names, ".nv.info");
  if (!symbol || info == nullptr) return -1;
  // Attributes: u8 format, u8 attribute, u16 size or value; a format 4 (sized) entry carries
  // `size` bytes after it. The register count is attribute 0x2f: u32 symbol, u32 count.
  constexpr uint8_t kSized = 4, kRegisterCount = 0x2f;
  for (uint64_t at = info->offset; at + 4 <= info->offset + info->size;) {
    uint8_t format = 0, attribute = 0;
    uint16_t size = 0;
    if (!read_at(cubin, at, &format) || !read_at(cubin, at + 1, &attribute) ||
        !read_at(cubin, at + 2, &size)) {
      return -1;
    }
    if (format == kSized && attribute == kRegisterCount && size == 8) {
      uint32_t owner = 0, count = 0;
      if (read_at(cubin, at + 4, &owner) && read_at(cubin, at + 8, &count) &&
          owner == symbol->first) {
        return static_cast<int>(count);
      }
    }
    at += 4 + (format == kSized ? size : 0);
  }
  return -1;
}

}  // namespace gputune
