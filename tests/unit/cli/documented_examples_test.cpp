// Every `gputune` command the README shows and every example of a command's --help, run as a
// user would type it, from a folder laid out like the checkout (spaces/, tests/, kernels/,
// examples/ linked; db/recordings copied, since examples write there). An example that needs a
// GPU runs as a replay of the shipped recording of its workload where there is one (into the
// database the search would have written); else it runs, and an exit of 69 (no GPU) counts as
// skipped, visibly. The shipped recordings are of older versions of the shipped specs, so an
// example that reads what such a replay stored and finds nothing of today's spec (65) is skipped
// too, with the message. An example that names a file of
// the user's own (problem.json, runs.db) has its options checked (`--help` after them: an unknown
// option or a bad value is still an error) and is listed as skipped. Every other example must
// exit 0.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gputune/session.h"
#include "replay/recording.h"
#include "space/problem.h"
#include "support/run_gputune.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// One example as the shell would get it: without its comment, the part before a pipe, and
// $VARIABLES as 0.
std::string command_of(std::string line) {
  for (size_t at = line.find(" #"); at != std::string::npos; at = std::string::npos) {
    line.resize(at);
  }
  const size_t pipe = line.find(" | ");
  if (pipe != std::string::npos) line.resize(pipe);
  for (size_t at = line.find('$'); at != std::string::npos; at = line.find('$', at)) {
    size_t end = at + 1;
    while (end < line.size() &&
           (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_')) {
      ++end;
    }
    line.replace(at, end - at, "0");
  }
  const size_t start = line.find("gputune ");
  return start == std::string::npos ? "" : line.substr(start + 8);
}

// The README's code blocks: lines that run gputune (build/gputune or gputune, also after
// mpirun), with `\` continuations joined.
std::vector<std::string> readme_examples() {
  std::ifstream in(test::source_dir() + "/README.md");
  std::vector<std::string> out;
  bool code = false;
  std::string pending;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) {
      code = !code;
      continue;
    }
    if (!code) continue;
    if (!pending.empty()) {
      pending += " " + line;
    } else if (line.rfind("build/gputune ", 0) == 0 || line.rfind("gputune ", 0) == 0 ||
               (line.rfind("mpirun ", 0) == 0 && line.find(" gputune ") != std::string::npos)) {
      pending = line;
    } else {
      continue;
    }
    if (!pending.empty() && pending.back() == '\\') {
      pending.pop_back();
      continue;
    }
    out.push_back(pending);
    pending.clear();
  }
  return out;
}

// The "examples:" lines of every command's --help.
std::vector<std::string> help_examples() {
  std::vector<std::string> commands;
  std::istringstream usage(testing::run_gputune("--help").out);
  bool listing = false;
  for (std::string line; std::getline(usage, line);) {
    if (line == "commands:") {
      listing = true;
    } else if (listing && line.empty()) {
      break;
    } else if (listing && line.rfind("  ", 0) == 0 && line.size() > 2 && line[2] != ' ') {
      commands.push_back(words_of(line)[0]);
    }
  }
  std::vector<std::string> out;
  for (const std::string& command : commands) {
    std::istringstream help(testing::run_gputune(command + " --help").out);
    bool examples = false;
    std::string pending;
    for (std::string line; std::getline(help, line);) {
      if (line == "examples:") {
        examples = true;
        continue;
      }
      if (!examples) continue;
      if (!pending.empty()) {
        pending += " " + line;
      } else if (line.rfind("  gputune ", 0) == 0) {
        pending = line;
      } else {
        continue;
      }
      if (pending.back() == '\\') {
        pending.pop_back();
        continue;
      }
      out.push_back(pending);
      pending.clear();
    }
  }
  return out;
}

class DocumentedExamples : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_examples_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "build");
    const fs::path source = test::source_dir();
    for (const char* folder : {"spaces", "tests", "kernels", "examples", "python", "tools"}) {
      fs::create_directory_symlink(source / folder, dir_ / folder);
    }
    fs::create_directories(dir_ / "db");
    fs::copy(source / "db" / "recordings", dir_ / "db" / "recordings", fs::copy_options::recursive);
    for (const char* folder : {"counters", "releases"}) {
      fs::create_directory_symlink(source / "db" / folder, dir_ / "db" / folder);
    }
    fs::create_symlink(fs::absolute(test::gputune_binary()), dir_ / "build" / "gputune");
  }
  void TearDown() override { fs::remove_all(dir_); }

  testing::CommandResult run(const std::string& args) const {
    return testing::run_command("cd " + dir_.string() + " && " + (dir_ / "build/gputune").string() +
                                " " + args);
  }

  // The shipped recording of the workload `args` searches (its SPEC and --set), if any.
  std::optional<std::string> recording_of(const std::vector<std::string>& args) const {
    // Every search example gives its SPEC first.
    if (args.size() < 2 || args[1].rfind("--", 0) == 0) return std::nullopt;
    const std::string spec = fs::exists(dir_ / args[1]) ? (dir_ / args[1]).string() : args[1];
    std::vector<std::string> sets;
    for (size_t i = 2; i + 1 < args.size(); ++i) {
      if (args[i] == "--set") sets.push_back(args[i + 1]);
    }
    try {
      const Spec wanted = open_spec(spec, parse_assignments(sets));
      const std::string problem = Problem(wanted).problem_json();
      const std::string stem = fs::path(wanted.path).stem().string();
      for (const auto& entry : fs::directory_iterator(dir_ / "db" / "recordings")) {
        if (entry.path().extension() != ".csv") continue;
        const Recording r = load_recording(entry.path().string());
        if (fs::path(r.info.spec_path).stem() == stem && r.info.problem_json == problem) {
          return entry.path().string();
        }
      }
    } catch (const std::exception&) {
    }
    return std::nullopt;
  }

  // A file the example reads that nobody made: the user's own.
  std::string missing_input(const std::vector<std::string>& args) const {
    static const std::vector<std::string> kinds = {".json", ".yaml", ".db", ".gtrel", ".csv"};
    const bool writes_db = args[0] == "search" || args[0] == "import" || args[0] == "merge";
    for (size_t i = 1; i < args.size(); ++i) {
      const std::string& word = args[i];
      const std::string& before = args[i - 1];
      if (before == "-o" || before == "--out" || (before == "--db" && writes_db)) continue;
      if (args[0] == "merge" && i == 1) continue;  // the output
      const size_t star = word.find('*');
      if (star != std::string::npos) {
        // A shell pattern: the user's files unless an earlier example made some.
        bool matched = false;
        for (const auto& entry : fs::directory_iterator(dir_ / fs::path(word).parent_path())) {
          const std::string name = entry.path().filename().string();
          const std::string prefix = fs::path(word).filename().string();
          const size_t at = prefix.find('*');
          matched = matched ||
                    (name.rfind(prefix.substr(0, at), 0) == 0 && name.size() >= prefix.size() - 1 &&
                     name.compare(name.size() - (prefix.size() - at - 1), std::string::npos,
                                  prefix.substr(at + 1)) == 0);
        }
        if (!matched) return word;
        continue;
      }
      const std::string extension = fs::path(word).extension().string();
      bool file = false;
      for (const std::string& kind : kinds) file = file || extension == kind;
      if (file && !fs::exists(dir_ / word)) return word;
    }
    return "";
  }

  // Runs one example; adds to `skipped` what it could not run, with why.
  void check(const std::string& line, std::vector<std::string>* skipped) {
    const std::string command = command_of(line);
    const std::vector<std::string> args = words_of(command);
    ASSERT_FALSE(args.empty()) << line;
    if (line.find("mpirun") != std::string::npos) {
      const testing::CommandResult parsed = run(command + " --help");
      EXPECT_EQ(parsed.exit_code, 0) << line << "\n" << parsed.err;
      skipped->push_back(line + "   (needs mpirun and GPUs; options checked)");
      return;
    }
    const std::string missing = missing_input(args);
    if (!missing.empty()) {
      const testing::CommandResult parsed = run(command + " --help");
      EXPECT_EQ(parsed.exit_code, 0) << line << "\n" << parsed.err;
      skipped->push_back(line + "   (reads " + missing +
                         ", a file of the user's; options checked)");
      return;
    }
    std::string to_run = command;
    const bool gpu_search = args[0] == "search" &&
                            command.find("--compile-only") == std::string::npos &&
                            command.find("--replay") == std::string::npos;
    if (gpu_search) {
      // The recording holds the spec and problem values it was measured with (the shipped
      // recordings' are older versions of the shipped specs): a user replays it without them.
      if (const std::optional<std::string> recording = recording_of(args)) {
        to_run = "search --replay " + *recording;
        std::string db = "gputune.db";  // where the search would have stored its results
        for (size_t i = 2; i < args.size(); ++i) {
          if (args[i] == "--set") {
            ++i;
            continue;
          }
          if (args[i] == "--db" && i + 1 < args.size()) db = args[i + 1];
          to_run += " " + args[i];
        }
        if (command.find("--db") == std::string::npos) to_run += " --db " + db;
        stand_in_dbs_.insert(db);
      }
    }
    const testing::CommandResult result = run(to_run);
    if (result.exit_code == 69) {
      const testing::CommandResult parsed = run(command + " --help");
      EXPECT_EQ(parsed.exit_code, 0) << line << "\n" << parsed.err;
      skipped->push_back(line + "   (needs a GPU: " + result.err.substr(0, 80) + ")");
      return;
    }
    if (result.exit_code == 65 && reads_a_stand_in(args)) {
      skipped->push_back(line +
                         "   (its database holds a replay of a recording of an older spec "
                         "version: " +
                         result.err.substr(0, 120) + ")");
      return;
    }
    EXPECT_EQ(result.exit_code, 0) << "example: " << line << "\nran: " << to_run << "\n"
                                   << result.err;
  }

  // Whether the example reads a database a replay stood in for a GPU search to make (its --db,
  // or gputune.db without one).
  bool reads_a_stand_in(const std::vector<std::string>& args) const {
    std::string db = "gputune.db";
    for (size_t i = 1; i + 1 < args.size(); ++i) {
      if (args[i] == "--db") db = args[i + 1];
    }
    for (const std::string& word : args) {
      if (stand_in_dbs_.count(word)) return true;
    }
    return stand_in_dbs_.count(db) > 0;
  }

  fs::path dir_;
  std::set<std::string> stand_in_dbs_;
};

void report_skipped(const std::vector<std::string>& skipped) {
  std::cout << "[ SKIPPED  ] " << skipped.size() << " examples could not run here:\n";
  for (const std::string& line : skipped) std::cout << "             " << line << "\n";
}

TEST_F(DocumentedExamples, EveryReadmeCommandRuns) {
  const std::vector<std::string> examples = readme_examples();
  ASSERT_GT(examples.size(), 20u);
  std::vector<std::string> skipped;
  for (const std::string& line : examples) check(line, &skipped);
  report_skipped(skipped);
  EXPECT_LT(skipped.size(), examples.size() / 2) << "most README examples should run";
}

TEST_F(DocumentedExamples, EveryHelpExampleRuns) {
  const std::vector<std::string> examples = help_examples();
  ASSERT_GT(examples.size(), 15u);
  std::vector<std::string> skipped;
  for (const std::string& line : examples) check(line, &skipped);
  report_skipped(skipped);
}

}  // namespace
}  // namespace gputune
