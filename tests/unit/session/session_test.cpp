// The facade both front ends call: searches answered from a recording or a database (no GPU),
// one replay rule, and stored results.
#include "gputune/session.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "gputune/error.h"
#include "replay/replay.h"
#include "store/store.h"
#include "support/synthetic_recording.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_session_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    spec_ = testing::write_synthetic_spec(dir_);
    db_ = (dir_ / "recorded.db").string();
    {
      auto store = open_sqlite_store(db_);
      testing::record_synthetic(*store, spec_, 1024, 0);
    }
    auto written = export_recordings(db_, (dir_ / "out").string());
    ASSERT_EQ(written.size(), 1u);
    recording_ = written[0].first;
  }
  void TearDown() override { fs::remove_all(dir_); }

  SearchRequest random_search(const std::string& replay) const {
    SearchRequest request;
    request.replay = replay;
    request.strategy = "random";
    request.seed = 4;
    request.budget = "25";
    return request;
  }

  fs::path dir_;
  std::string spec_, db_, recording_;
};

ErrorCode code_of(const SearchRequest& request, std::string* message) {
  try {
    search(request);
  } catch (const Error& e) {
    *message = e.what();
    return e.code();
  }
  ADD_FAILURE() << "no error";
  return ErrorCode::kInternal;
}

TEST_F(SessionTest, RecordingReplaysWithItsOwnSpecIntoNoDatabase) {
  SearchOutcome outcome = search(random_search(recording_));
  EXPECT_EQ(outcome.device.name, "Synthetic GPU A");
  EXPECT_TRUE(outcome.db.empty()) << "without db, a replay stores nothing";
  EXPECT_FALSE(outcome.interrupted);
  auto report = nlohmann::json::parse(outcome.report.json(ResultReport::kAllRows));
  EXPECT_EQ(report["search"]["evaluated"].get<int>() + report["search"]["reused"].get<int>(), 26);
  EXPECT_EQ(report["search"]["strategy"], "random");
  EXPECT_EQ(outcome.problem.problem_json, R"({"n":1024})");
  EXPECT_EQ(outcome.problem.dimensions.size(), 6u);
  EXPECT_EQ(outcome.evaluated.size(), 25u);
}

TEST_F(SessionTest, RecordingAndDatabaseGiveTheSameSearch) {
  SearchRequest from_database = random_search(db_);
  from_database.spec = spec_;
  from_database.db = (dir_ / "replayed.db").string();
  SearchOutcome a = search(random_search(recording_));
  SearchOutcome b = search(from_database);
  EXPECT_EQ(a.report.json(ResultReport::kAllRows).substr(0, 200),
            b.report.json(ResultReport::kAllRows).substr(0, 200));
  ASSERT_EQ(a.evaluated.size(), b.evaluated.size());
  for (size_t i = 0; i < a.evaluated.size(); ++i) {
    EXPECT_EQ(a.evaluated[i].config_index, b.evaluated[i].config_index);
  }
  EXPECT_EQ(b.db, *from_database.db);
  auto stored = stored_workloads(*from_database.db);
  ASSERT_EQ(stored.size(), 1u);
  // 26 evaluations, then racing's final re-measurement: one more attempt for each of the top 3.
  EXPECT_EQ(stored[0].attempts, 26 + 3);
}

TEST_F(SessionTest, AReplayCannotRunACheckFunctionAndSaysSo) {
  SearchOutcome plain = search(random_search(recording_));
  SearchRequest checked = random_search(recording_);
  int calls = 0;
  checked.host_check = [&calls](const HostCheckArrays&) {
    ++calls;
    return std::string("rejected");
  };
  SearchOutcome replayed = search(checked);
  std::string err;
  for (const std::string& warning : replayed.warnings) err += warning + "\n";
  EXPECT_EQ(calls, 0);
  EXPECT_NE(err.find("a replay cannot run the check function"), std::string::npos) << err;
  // The statuses are the stored ones.
  ASSERT_EQ(replayed.evaluated.size(), plain.evaluated.size());
  for (size_t i = 0; i < plain.evaluated.size(); ++i) {
    EXPECT_EQ(replayed.evaluated[i].config_index, plain.evaluated[i].config_index);
    EXPECT_EQ(replayed.evaluated[i].status, plain.evaluated[i].status);
  }
  EXPECT_EQ(replayed.baseline.status, plain.baseline.status);
}

TEST_F(SessionTest, ACheckFunctionAndCheckNoneAreRefusedTogether) {
  std::string text;
  {
    std::ifstream in(spec_);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::ofstream(dir_ / "unchecked.yaml") << text << "check: none\n";
  SearchRequest request;
  request.spec = (dir_ / "unchecked.yaml").string();
  request.host_check = [](const HostCheckArrays&) { return std::string(); };
  std::string message;
  EXPECT_EQ(code_of(request, &message), ErrorCode::kUsage);
  EXPECT_NE(message.find("check: none"), std::string::npos) << message;
}

TEST_F(SessionTest, ProgressNamesThePhasesInOrder) {
  std::vector<SearchPhase> phases;
  uint64_t last_done = 0;
  search(random_search(recording_), [&](const SearchProgress& p) {
    if (phases.empty() || phases.back() != p.phase) phases.push_back(p.phase);
    last_done = p.done;
  });
  EXPECT_EQ(phases, (std::vector<SearchPhase>{SearchPhase::kBaseline, SearchPhase::kCompiling,
                                              SearchPhase::kMeasuring}));
  EXPECT_EQ(last_done, 25u);
  EXPECT_STREQ(phase_name(SearchPhase::kFillingInputs), "allocating and filling inputs");
}

TEST_F(SessionTest, OneReplayRule) {
  EXPECT_EQ(replay_source_kind(db_), ReplaySource::kDatabase);
  EXPECT_EQ(replay_source_kind(recording_), ReplaySource::kRecording);
  std::string message;
  EXPECT_EQ(code_of(random_search(db_), &message), ErrorCode::kUsage);
  EXPECT_NE(message.find("give the SPEC"), std::string::npos) << message;

  SearchRequest other_problem = random_search(recording_);
  other_problem.spec = spec_;
  other_problem.overrides = {{"n", "2048"}};
  EXPECT_EQ(code_of(other_problem, &message), ErrorCode::kUsage);
  EXPECT_NE(message.find("recorded at"), std::string::npos) << message;

  SearchRequest no_such_spec = random_search(recording_);
  no_such_spec.spec = "no-such-spec";
  EXPECT_EQ(code_of(no_such_spec, &message), ErrorCode::kUsage);

  SearchRequest set_without_spec = random_search(recording_);
  set_without_spec.overrides = {{"n", "1024"}};
  EXPECT_EQ(code_of(set_without_spec, &message), ErrorCode::kUsage);

  SearchRequest with_its_spec = random_search(recording_);
  with_its_spec.spec = spec_;
  EXPECT_EQ(search(with_its_spec).device.name, "Synthetic GPU A");
}

TEST_F(SessionTest, ARelativeSpecPathIsFoundAboveTheRecording) {
  const fs::path deep = dir_ / "recordings" / "h200";
  fs::create_directories(deep);
  const std::string recording = (deep / "relative.csv").string();
  {
    auto store = open_sqlite_store(db_, true);
    export_recording(*store, store->workloads()[0].id, recording, "", dir_.string());
  }
  EXPECT_EQ(load_recording(recording).info.spec_path, "synthetic.yaml");
  EXPECT_EQ(search(random_search(recording)).device.name, "Synthetic GPU A");
}

// A user's copy: the recording and its spec (with the kernel) in one folder, the recording still
// naming the spec by its path in the repository it was made in.
TEST_F(SessionTest, ASpecBesideTheRecordingIsFound) {
  const fs::path copy = dir_ / "copy";
  testing::write_synthetic_spec(copy);
  Recording recording = load_recording(recording_);
  recording.info.spec_path = "spaces/synthetic.yaml";
  const std::string path = (copy / "mine.csv").string();
  write_recording(recording, path);
  EXPECT_EQ(search(random_search(path)).device.name, "Synthetic GPU A");
  fs::remove(copy / "synthetic.yaml");
  std::string message;
  EXPECT_NE(code_of(random_search(path), &message), ErrorCode::kInternal);
  EXPECT_NE(message.find("spaces/synthetic.yaml"), std::string::npos) << message;
}

// A replay answers a config its recording lacks with "not in the recording", which is no
// measurement: storing it would have a later search on a GPU skip the config as measured.
TEST_F(SessionTest, AConfigNotInTheRecordingIsNeverStored) {
  Recording recording = load_recording(recording_);
  std::vector<Measurement> kept;
  for (const Measurement& m : recording.measurements) {
    if (m.config_index % 2 == 0 || m.config_index == recording.info.baseline_index) {
      kept.push_back(m);
    }
  }
  ASSERT_LT(kept.size(), recording.measurements.size());
  recording.measurements = kept;
  const std::string partial = (dir_ / "partial.csv").string();
  write_recording(recording, partial);
  SearchRequest request = random_search(partial);
  request.budget = "60";
  request.db = (dir_ / "partial.db").string();
  SearchOutcome outcome = search(request);
  std::string err;
  for (const std::string& warning : outcome.warnings) err += warning + "\n";
  const auto unanswered =
      std::count_if(outcome.evaluated.begin(), outcome.evaluated.end(), is_unrecorded);
  ASSERT_GT(unanswered, 0) << "the test needs a search that asks for unrecorded configs";
  EXPECT_NE(err.find(std::to_string(unanswered) + " of the configs the search chose"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("partial.csv"), std::string::npos) << err;
  auto store = open_sqlite_store(*request.db, true);
  const std::vector<Measurement> stored = store->measured(store->workloads()[0].id);
  EXPECT_FALSE(stored.empty());
  for (const Measurement& m : stored) {
    EXPECT_FALSE(is_unrecorded(m)) << m.config_index;
    EXPECT_EQ(m.config_index % 2 == 0 || m.config_index == recording.info.baseline_index, true)
        << m.config_index;
  }
  auto report = nlohmann::json::parse(outcome.report.json(ResultReport::kAllRows));
  // A row without a message has none to check (operator[] on a const json must find its key).
  for (const auto& row : report["results"]) {
    EXPECT_NE(row.value("message", ""), "not in the recording");
  }
}

TEST_F(SessionTest, OptionsAreCheckedBeforeAnythingRuns) {
  std::string message;
  SearchRequest budget = random_search(recording_);
  budget.budget = "3 parsecs";
  EXPECT_EQ(code_of(budget, &message), ErrorCode::kUsage);
  EXPECT_NE(message.find("--budget 3 parsecs"), std::string::npos) << message;

  SearchRequest strategy = random_search(recording_);
  strategy.strategy = "no-such-strategy";
  EXPECT_EQ(code_of(strategy, &message), ErrorCode::kUsage);

  SearchRequest watchdog;
  watchdog.spec = spec_;
  watchdog.use_cache = false;
  watchdog.timeout_floor_s = 0;
  EXPECT_EQ(code_of(watchdog, &message), ErrorCode::kUsage);
  EXPECT_NE(message.find("--timeout-floor"), std::string::npos) << message;

  SearchRequest nothing;
  EXPECT_EQ(code_of(nothing, &message), ErrorCode::kUsage);
  EXPECT_NE(message.find("a SPEC is required"), std::string::npos) << message;
}

TEST_F(SessionTest, StoredResultsOfAWorkload) {
  auto workloads = stored_workloads(db_, open_spec(spec_));
  ASSERT_EQ(workloads.size(), 1u);
  EXPECT_TRUE(workloads[0].best.has_value());
  EXPECT_GT(workloads[0].speedup(), 0);
  EXPECT_TRUE(stored_workloads(db_, open_spec(spec_, {{"n", "2048"}})).empty());
  StoredWorkload stored = load_stored(db_, workloads[0].id, open_spec(spec_));
  EXPECT_EQ(static_cast<int64_t>(stored.history.size()), workloads[0].attempts);
  ASSERT_TRUE(stored.problem.has_value());
  auto report = nlohmann::json::parse(stored.report.json(ResultReport::kAllRows));
  EXPECT_EQ(report["results"].size(), static_cast<size_t>(workloads[0].ok));
  EXPECT_THROW(load_stored(db_, 999), Error);
  EXPECT_THROW(stored_workloads((dir_ / "none.db").string()), Error);
  EXPECT_FALSE(fs::exists(dir_ / "none.db"));
}

TEST(Session, MeasurementRecordsAreTheReportsRows) {
  Measurement m;
  m.config_index = 3;
  m.config = R"({"A":1})";
  m.status = Status::kOk;
  m.samples_ms = {1, 2, 3};
  auto record = nlohmann::json::parse(measurement_record(m));
  EXPECT_EQ(record["index"], 3);
  EXPECT_EQ(record["config"]["A"], 1);
  EXPECT_EQ(record["median_ms"], 2);
  EXPECT_EQ(record["status"], "ok");
}

}  // namespace
}  // namespace gputune
