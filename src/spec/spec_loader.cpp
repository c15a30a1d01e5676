#include "spec/spec_loader.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/text.h"
#include "gputune/error.h"
#include "spec/t1_reader.h"
#include "spec/yaml_loader.h"

namespace gputune {

Spec parse_spec(const std::string& text, const std::string& path, const Overrides& overrides) {
  // What a spec says ends up in JSON (stored specs, configs, reports), which is UTF-8.
  if (const size_t bad = first_invalid_utf8(text); bad != std::string::npos) {
    const size_t line_start = text.rfind('\n', bad == 0 ? 0 : bad - 1);
    const size_t column = line_start == std::string::npos || bad == 0 ? bad : bad - line_start - 1;
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + bad, '\n'));
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[bad]));
    throw Error(ErrorCode::kSpec, SourceLocation{path, line, static_cast<int>(column) + 1}.str() +
                                      ": byte " + byte +
                                      " is not UTF-8 text; expected a spec in UTF-8");
  }
  if (is_t1_path(path)) return parse_t1_spec(text, path, overrides);
  YamlLoader loader(text, path, overrides);
  try {
    return loader.load();
  } catch (const YAML::Exception& e) {
    // A yaml-cpp failure the checks above did not foresee still gets a location.
    const int line = e.mark.is_null() ? 1 : e.mark.line + 1;
    const int column = e.mark.is_null() ? 1 : e.mark.column + 1;
    throw Error(ErrorCode::kSpec, SourceLocation{path, line, column}.str() +
                                      ": unexpected structure (" + e.msg +
                                      "); expected the documented spec format");
  }
}

Spec load_spec(const std::string& path, const Overrides& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::kIo, path + ": cannot read the spec file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_spec(text.str(), path, overrides);
}

}  // namespace gputune