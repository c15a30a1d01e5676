// The dependency rules of docs/ARCHITECTURE.md, enforced: every quoted include in src/,
// include/gputune/ and the Python module must name a folder its own folder may use. The rules
// are read from the document itself, so the two cannot drift apart.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

// Folder -> the folders it may include, besides itself and the public gputune/ headers.
using Rules = std::map<std::string, std::set<std::string>>;

struct Include {
  std::string file;    // relative to the checkout
  std::string folder;  // the including file's folder, as the rules name it
  std::string target;  // what the include names
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

// The rows of the table under "## Dependency rules": | `folder` | `a`, `b` | ... |
Rules parse_rules(const std::string& markdown) {
  Rules rules;
  const size_t section = markdown.find("## Dependency rules");
  if (section == std::string::npos) return rules;
  std::istringstream lines(markdown.substr(section));
  static const std::regex kRow(R"(^\|\s*`([a-z0-9_]+)`\s*\|([^|]*)\|)");
  static const std::regex kName("`([a-z0-9_]+)`");
  std::string line;
  std::getline(lines, line);  // the heading
  while (std::getline(lines, line) && line.rfind("## ", 0) != 0) {
    std::smatch row;
    if (!std::regex_search(line, row, kRow)) continue;
    std::set<std::string>& allowed = rules[row[1]];
    const std::string list = row[2];
    for (std::sregex_iterator it(list.begin(), list.end(), kName), end; it != end; ++it) {
      allowed.insert((*it)[1]);
    }
  }
  return rules;
}

// Where a quoted include leads: the folder of "model/features.h", or "gputune" for the public
// headers; "" for a name without a folder.
std::string target_folder(const std::string& target) {
  const size_t slash = target.find('/');
  return slash == std::string::npos ? "" : target.substr(0, slash);
}

std::vector<std::string> violations(const Rules& rules, const std::vector<Include>& includes) {
  std::vector<std::string> out;
  for (const auto& include : includes) {
    const auto rule = rules.find(include.folder);
    if (rule == rules.end()) {
      out.push_back(include.file + ": folder '" + include.folder +
                    "' has no row in docs/ARCHITECTURE.md's dependency rules");
      continue;
    }
    const std::string to = target_folder(include.target);
    if (to == "gputune" || to == include.folder || rule->second.count(to)) continue;
    out.push_back(include.file + " includes \"" + include.target + "\": " + include.folder +
                  " may not include " + (to.empty() ? "a header without a folder" : to));
  }
  return out;
}

std::vector<Include> includes_of(const fs::path& root, const fs::path& file,
                                 const std::string& folder) {
  static const std::regex kInclude(R"re(^\s*#\s*include\s+"([^"]+)")re");
  std::vector<Include> out;
  std::istringstream lines(read_text(file));
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch match;
    if (std::regex_search(line, match, kInclude)) {
      out.push_back({fs::relative(file, root).string(), folder, match[1]});
    }
  }
  return out;
}

bool is_source(const fs::path& path) {
  const std::string ext = path.extension().string();
  return ext == ".cpp" || ext == ".h" || ext == ".cuh";
}

std::vector<Include> project_includes(const fs::path& root) {
  std::vector<Include> out;
  auto add = [&](const fs::path& file, const std::string& folder) {
    auto found = includes_of(root, file, folder);
    out.insert(out.end(), found.begin(), found.end());
  };
  for (const auto& entry : fs::recursive_directory_iterator(root / "src")) {
    if (!entry.is_regular_file() || !is_source(entry.path())) continue;
    const fs::path relative = fs::relative(entry.path(), root / "src");
    add(entry.path(), relative.begin() == relative.end() || !relative.has_parent_path()
                          ? ""
                          : relative.begin()->string());
  }
  for (const auto& entry : fs::directory_iterator(root / "include" / "gputune")) {
    if (entry.is_regular_file() && is_source(entry.path())) add(entry.path(), "gputune");
  }
  for (const auto& entry : fs::recursive_directory_iterator(root / "python" / "src")) {
    if (entry.is_regular_file() && is_source(entry.path())) add(entry.path(), "python");
  }
  return out;
}

const fs::path kRoot = test::source_dir();

TEST(Layering, EveryIncludeFollowsTheDocumentedRules) {
  const Rules rules = parse_rules(read_text(kRoot / "docs" / "ARCHITECTURE.md"));
  ASSERT_GE(rules.size(), 10u) << "no dependency table found in docs/ARCHITECTURE.md";
  const auto includes = project_includes(kRoot);
  ASSERT_GT(includes.size(), 100u);
  std::string report;
  for (const auto& v : violations(rules, includes)) report += v + "\n";
  EXPECT_TRUE(report.empty()) << report;
}

TEST(Layering, EverySourceFolderHasARule) {
  const Rules rules = parse_rules(read_text(kRoot / "docs" / "ARCHITECTURE.md"));
  for (const auto& entry : fs::directory_iterator(kRoot / "src")) {
    if (entry.is_directory()) {
      EXPECT_TRUE(rules.count(entry.path().filename().string()))
          << entry.path().filename() << " is missing from the dependency rules";
    }
  }
  EXPECT_TRUE(rules.count("gputune")) << "the public headers need a row";
  EXPECT_TRUE(rules.count("python")) << "the Python module needs a row";
}

TEST(Layering, AnUpwardIncludeIsReported) {
  const Rules rules = parse_rules(
      "## Dependency rules\n| folder | may include |\n|---|---|\n| `core` | |\n"
      "| `spec` | `core` |\n| `search` | `core`, `spec` |\n## Next\n| `ignored` | `x` |\n");
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_EQ(rules.at("search"), (std::set<std::string>{"core", "spec"}));
  const auto found = violations(rules, {{"src/spec/a.cpp", "spec", "core/error.h"},
                                        {"src/spec/b.cpp", "spec", "gputune/spec.h"},
                                        {"src/spec/c.cpp", "spec", "spec/c.h"},
                                        {"src/core/d.cpp", "core", "spec/spec_loader.h"},
                                        {"src/spec/e.cpp", "spec", "search/search.h"},
                                        {"src/spec/f.cpp", "spec", "flat.h"},
                                        {"src/other/g.cpp", "other", "core/error.h"}});
  ASSERT_EQ(found.size(), 4u);
  EXPECT_NE(found[0].find("core may not include spec"), std::string::npos) << found[0];
  EXPECT_NE(found[1].find("spec may not include search"), std::string::npos) << found[1];
  EXPECT_NE(found[2].find("without a folder"), std::string::npos) << found[2];
  EXPECT_NE(found[3].find("has no row"), std::string::npos) << found[3];
}

}  // namespace
}  // namespace gputune
