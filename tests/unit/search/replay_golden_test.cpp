// Behaviour kept across refactoring: replayed searches on db/recordings print the same tables
// and JSON and write the same database rows as the code that wrote tests/golden/replay/.
// GPUTUNE_UPDATE_GOLDEN=1 rewrites the expectations (only when a change of output is meant).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_gputune.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

// Columns that hold wall-clock dates or durations: they differ on every run.
const std::set<std::string> kVolatileColumns = {"created_at", "bandwidth_measured_at",
                                                "wall_s",     "compile_s",
                                                "check_s",    "time_s",
                                                "jobs",       "run_s",
                                                "overhead_s", "database_id",
                                                "host",       "merged_at"};

std::string dump_database(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  std::vector<std::string> tables;
  sqlite3_stmt* list = nullptr;
  sqlite3_prepare_v2(db,
                     "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
                     "'sqlite_%' ORDER BY name",
                     -1, &list, nullptr);
  while (sqlite3_step(list) == SQLITE_ROW) {
    tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(list, 0)));
  }
  sqlite3_finalize(list);
  std::ostringstream out;
  for (const auto& table : tables) {
    out << "## " << table << "\n";
    sqlite3_stmt* rows = nullptr;
    sqlite3_prepare_v2(db, ("SELECT * FROM " + table + " ORDER BY rowid").c_str(), -1, &rows,
                       nullptr);
    while (sqlite3_step(rows) == SQLITE_ROW) {
      for (int c = 0; c < sqlite3_column_count(rows); ++c) {
        const std::string column = sqlite3_column_name(rows, c);
        out << (c ? " | " : "") << column << "=";
        if (kVolatileColumns.count(column)) {
          out << "*";
        } else if (sqlite3_column_type(rows, c) == SQLITE_NULL) {
          out << "NULL";
        } else {
          out << reinterpret_cast<const char*>(sqlite3_column_text(rows, c));
        }
      }
      out << "\n";
    }
    sqlite3_finalize(rows);
  }
  sqlite3_close(db);
  return out.str();
}

// The report's rates and durations are wall-clock figures, and so is the time pruning by the
// prior took to decide.
std::string mask_timing(const std::string& text) {
  static const std::regex kSearchLine(R"((search: [a-z_]+, \d+ measured, \d+ reused)[^\n]*)");
  static const std::regex kJsonTiming(
      R"re(("(wall_s|compile_s|check_s|time_s|run_s|)re"
      R"re(overhead_s|measured_per_s|jobs|seconds)": )[-0-9.e+]+)re");
  static const std::regex kPriorLine(R"((prior: [^\n]* of them in )[0-9.]+ s)");
  std::string out = std::regex_replace(text, kSearchLine, "$1 *");
  out = std::regex_replace(out, kJsonTiming, "$1*");
  return std::regex_replace(out, kPriorLine, "$1* s");
}

// The checkout's path differs between machines.
std::string mask_checkout(std::string text) {
  const std::string root = test::source_dir();
  for (size_t at = text.find(root); at != std::string::npos; at = text.find(root, at)) {
    text.replace(at, root.size(), "<src>");
  }
  return text;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

void expect_golden(const std::string& name, const std::string& actual) {
  const fs::path path = fs::path(test::source_dir()) / "tests/golden/replay" / name;
  if (std::getenv("GPUTUNE_UPDATE_GOLDEN")) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << actual;
    return;
  }
  ASSERT_TRUE(fs::exists(path)) << path << " is missing; GPUTUNE_UPDATE_GOLDEN=1 writes it";
  EXPECT_EQ(actual, read_file(path)) << "differs from " << path;
}

struct Step {
  std::string recording, arguments;
};

// Runs the steps into one database (later steps see earlier ones as prior data) and compares
// every step's output and the database they leave.
void replay_case(const std::string& name, const std::vector<Step>& steps) {
  const fs::path dir = fs::temp_directory_path() / ("gputune_golden_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string db = (dir / "results.db").string();
  std::string outputs;
  for (const auto& step : steps) {
    const std::string recording = test::source_dir() + "/db/recordings/" + step.recording;
    auto result = testing::run_gputune("search --replay " + recording + " " + step.arguments +
                                       " --quiet --db " + db);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    outputs += "$ " + step.recording + " " + step.arguments + "\n" + mask_timing(result.out);
  }
  expect_golden(name + ".out", mask_checkout(outputs));
  expect_golden(name + ".db", mask_checkout(dump_database(db)));
  fs::remove_all(dir);
}

TEST(ReplayGolden, TransposeStrategies) {
  replay_case(
      "transpose",
      {{"transpose_n_4096_NVIDIA_H200.csv", "--strategy random --budget 25 --seed 3"},
       {"transpose_n_8192_NVIDIA_H200.csv", "--strategy annealing --budget 30 --seed 5 --top 5"},
       {"transpose_n_4096_NVIDIA_H200.csv", "--strategy genetic --budget 40 --seed 7 --json"}});
}

TEST(ReplayGolden, StencilBruteForceAndModel) {
  replay_case(
      "stencil",
      {{"stencil_nx_4096_ny_4096_NVIDIA_H200.csv", "--strategy brute_force --budget 30"},
       {"stencil_nx_8192_ny_8192_NVIDIA_H200.csv", "--strategy model --budget 20 --seed 2"}});
}

TEST(ReplayGolden, SgemmModelWithPriorAcrossSizes) {
  replay_case(
      "sgemm",
      {{"sgemm_m_1024_n_1024_k_1024_NVIDIA_H200.csv", "--strategy random --budget 60 --seed 1"},
       {"sgemm_m_4096_n_4096_k_4096_NVIDIA_H200.csv", "--strategy random --budget 60 --seed 2"},
       {"sgemm_m_2048_n_2048_k_2048_NVIDIA_H200.csv",
        "--strategy model --budget 15 --seed 4 --json"},
       {"sgemm_m_2048_n_2048_k_2048_NVIDIA_H200.csv",
        "--strategy model --budget 15 --seed 4 --no-prior"}});
}

}  // namespace
}  // namespace gputune
