#include "replay/replay.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gputune/error.h"
#include "support/synthetic_recording.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

class ReplayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_replay_test_" + std::to_string(getpid()));
    spec_ = testing::write_synthetic_spec(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  std::string spec_;
};

TEST_F(ReplayTest, ExportThenLoadKeepsEveryField) {
  auto store = open_sqlite_store(":memory:");
  Recording recording = testing::record_synthetic(*store, spec_, 1024, 0);
  ASSERT_GT(recording.measurements.size(), 1000u);
  Measurement odd;
  odd.config_index = 999999;
  odd.config = R"({"TX":8,"note":"a, \"quoted\" value"})";
  odd.status = Status::kWrongAnswer;
  odd.message = "line one, with a comma\nline \"two\"";
  odd.samples_ms = {0.1, 1.0 / 3.0};
  recording.measurements.push_back(odd);
  recording.info.commit = "abc123";
  const std::string path = (dir_ / "r.csv").string();
  write_recording(recording, path);
  Recording loaded = load_recording(path);

  EXPECT_EQ(loaded.info.origin, "synthetic");
  EXPECT_EQ(loaded.info.spec_path, recording.info.spec_path);
  EXPECT_EQ(loaded.info.spec_hash, recording.info.spec_hash);
  EXPECT_FALSE(recording.info.measurement_hash.empty());
  EXPECT_EQ(loaded.info.measurement_hash, recording.info.measurement_hash);
  EXPECT_EQ(loaded.info.source_hash, recording.info.source_hash);
  EXPECT_EQ(loaded.info.problem_json, R"({"n":1024})");
  EXPECT_EQ(loaded.info.device.key(), recording.info.device.key());
  EXPECT_EQ(loaded.info.nvrtc_version, recording.info.nvrtc_version);
  EXPECT_EQ(loaded.info.baseline_index, recording.info.baseline_index);
  EXPECT_EQ(loaded.info.copy_bandwidth_gbs, 3000);
  EXPECT_EQ(loaded.info.commit, "abc123");
  EXPECT_FALSE(loaded.info.recorded_at.empty());
  ASSERT_EQ(loaded.measurements.size(), recording.measurements.size());
  for (size_t i = 0; i < loaded.measurements.size(); ++i) {
    const Measurement& a = recording.measurements[i];
    const Measurement& b = loaded.measurements[i];
    EXPECT_EQ(a.config_index, b.config_index);
    EXPECT_EQ(a.config, b.config);
    EXPECT_EQ(a.status, b.status);
    EXPECT_EQ(a.samples_ms, b.samples_ms);  // exact: written with round-trip precision
    EXPECT_EQ(a.compile_ms, b.compile_ms);
    EXPECT_EQ(a.registers, b.registers);
    EXPECT_EQ(a.shared_bytes, b.shared_bytes);
    EXPECT_EQ(a.spill_bytes, b.spill_bytes);
    EXPECT_EQ(a.message, b.message);
  }
}

TEST_F(ReplayTest, SearchInReplayGetsWhatWasRecorded) {
  auto recorded_store = open_sqlite_store(":memory:");
  Recording recorded = testing::record_synthetic(*recorded_store, spec_, 1024, 0);
  const std::string path = (dir_ / "r.csv").string();
  export_recording(*recorded_store, 1, path, "deadbeef", test::source_dir());
  Recording loaded = load_recording(path);
  EXPECT_EQ(loaded.info.commit, "deadbeef");

  Problem problem = recording_problem(loaded, test::source_dir());
  EXPECT_EQ(problem.problem_json(), loaded.info.problem_json);
  auto runner = make_replay_runner(loaded);
  EXPECT_EQ(runner->device().name, "Synthetic GPU A");
  auto compiler = make_replay_compiler();
  auto store = open_sqlite_store(":memory:");
  SearchResult result = run_search(problem, *runner, *compiler, *store, {});
  auto replayed = store->measured(result.workload);
  ASSERT_EQ(replayed.size(), recorded.measurements.size());
  for (size_t i = 0; i < replayed.size(); ++i) {
    EXPECT_EQ(replayed[i].config_index, recorded.measurements[i].config_index);
    EXPECT_EQ(replayed[i].status, recorded.measurements[i].status);
    EXPECT_EQ(replayed[i].samples_ms, recorded.measurements[i].samples_ms);
    EXPECT_EQ(replayed[i].message, recorded.measurements[i].message);
  }
}

TEST_F(ReplayTest, AConfigNotRecordedIsARuntimeError) {
  Recording recording;
  recording.info.device.name = "Recorded GPU";
  Measurement m;
  m.config_index = 3;
  m.samples_ms = {1.0};
  recording.measurements.push_back(m);
  auto runner = make_replay_runner(recording);
  Candidate known, unknown;
  known.variant.index = 3;
  unknown.variant.index = 4;
  auto out = runner->run({known, unknown});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].status, Status::kOk);
  EXPECT_EQ(out[1].status, Status::kRuntimeError);
  EXPECT_EQ(out[1].message, "not in the recording");
  EXPECT_EQ(runner->device().name, "Recorded GPU");
}

TEST_F(ReplayTest, ASpecChangedSinceTheRecordingIsRefused) {
  auto store = open_sqlite_store(":memory:");
  Recording recording = testing::record_synthetic(*store, spec_, 1024, 0);
  // Another value of a parameter: the config indices mean other configs now.
  std::string text = testing::kSyntheticSpec;
  const std::string values = "UNROLL: [1, 2, 4, 8]";
  text.replace(text.find(values), values.size(), "UNROLL: [1, 2, 4, 8, 16]");
  std::ofstream(spec_) << text;
  try {
    recording_problem(recording, test::source_dir());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("changed since the recording"), std::string::npos);
  }
  EXPECT_NO_THROW(recording_problem(recording, test::source_dir(), true));
}

TEST_F(ReplayTest, ASpecThatGainedRemediesOrCommentsStillReplays) {
  auto store = open_sqlite_store(":memory:");
  Recording recording = testing::record_synthetic(*store, spec_, 1024, 0);
  std::ofstream(spec_, std::ios::app)
      << "# which knobs address which bottleneck\nremedies: {padding: [+PAD]}\n"
      << "search: {strategy: model, budget: 50}\n";
  const Problem problem = recording_problem(recording, test::source_dir());
  EXPECT_NE(problem.spec().spec_hash(), recording.info.spec_hash);
  EXPECT_EQ(problem.spec().measurement_hash(), recording.info.measurement_hash);
  ASSERT_EQ(problem.spec().remedies.size(), 1u);

  // A recording from before measurement hashes needs the very text it was made with.
  recording.info.measurement_hash.clear();
  EXPECT_THROW(recording_problem(recording, test::source_dir()), Error);
}

TEST_F(ReplayTest, MalformedRecordingsSayWhere) {
  const std::string path = (dir_ / "bad.csv").string();
  std::ofstream(path) << "not a recording\n";
  try {
    load_recording(path);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIo);
    EXPECT_NE(std::string(e.what()).find(path + ":1:"), std::string::npos) << e.what();
  }
  std::ofstream(path) << "# gputune recording v1\n# spec_path: s.yaml\n"
                      << "config_index,config,status,median_ms,samples,compile_ms,registers,"
                         "shared_bytes,spill_bytes,message\n"
                      << "1,{},ok,1,1,0,0,0,0,\n"
                      << "2,{},ok,1,x,0,0,0,0,\n";
  try {
    load_recording(path);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":5:"), std::string::npos) << e.what();
  }
}

// A recording is outside data: its numbers are checked before a replay stores them (negative
// times became "the best"; a shared recording put {"evil":1} into a release as rank 0).
TEST_F(ReplayTest, RecordedNumbersNoGpuMeasuredAreRefused) {
  const std::string path = (dir_ / "bad.csv").string();
  const std::string header =
      "# gputune recording v1\n# spec_path: s.yaml\n"
      "config_index,config,status,median_ms,samples,compile_ms,registers,shared_bytes,"
      "spill_bytes,message\n";
  const auto error_of = [&](const std::string& text) -> std::string {
    std::ofstream(path) << text;
    try {
      load_recording(path);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error_of(header + "1,{},ok,1,0.5;-1,0,0,0,0,\n").find(path + ":4: a sample of -1"),
            std::string::npos);
  EXPECT_NE(error_of(header + "1,{},ok,1,0.5;1e400,0,0,0,0,\n").find(path + ":4:"),
            std::string::npos);
  EXPECT_NE(error_of(header + "1,{},ok,1,1,-5,0,0,0,\n").find("compile_ms"), std::string::npos);
  EXPECT_NE(error_of(header + "1,{},ok,1,1,0,99999999999,0,0,\n").find("out of range"),
            std::string::npos);
  const std::string device = "# gputune recording v1\n# spec_path: s.yaml\n# sm_count: ";
  EXPECT_NE(error_of(device + "99999999999\n" + header.substr(header.find("config_index")))
                .find("sm_count"),
            std::string::npos);
  EXPECT_NE(error_of("# gputune recording v1\n# spec_path: s.yaml\n# compute_capability: 900.0\n" +
                     header.substr(header.find("config_index")))
                .find("compute_capability"),
            std::string::npos);
}

// Its text becomes stored text and JSON: bytes that are not UTF-8 are the file's error, not an
// internal one when a report or an export writes them later.
TEST_F(ReplayTest, TextThatIsNotUtf8IsRefusedWithItsLine) {
  const std::string path = (dir_ / "bad.csv").string();
  const std::string columns =
      "config_index,config,status,median_ms,samples,compile_ms,registers,shared_bytes,"
      "spill_bytes,message\n";
  const auto error_of = [&](const std::string& text) -> std::string {
    std::ofstream(path) << text;
    try {
      load_recording(path);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kIo);
      return e.what();
    }
    return "";
  };
  const std::string head = "# gputune recording v1\n# spec_path: s.yaml\n";
  EXPECT_NE(error_of(head + "# gpu: NV\xffIDIA\n" + columns).find(path + ":3: not UTF-8"),
            std::string::npos);
  EXPECT_NE(error_of(head + columns + "1,{},ok,1,1,0,0,0,0,caf\xC3\n").find(path + ":4: not UTF-8"),
            std::string::npos);
  EXPECT_EQ(error_of(head + "# gpu: caf\xC3\xA9\n" + columns + "1,{},ok,1,1,0,0,0,0,\n"), "");
}

TEST_F(ReplayTest, ARecordingWithoutHashesNeedsTheFlagNamedForTheRisk) {
  auto store = open_sqlite_store(":memory:");
  Recording recording = testing::record_synthetic(*store, spec_, 1024, 0);
  recording.info.spec_hash.clear();
  recording.info.measurement_hash.clear();
  try {
    recording_problem(recording, test::source_dir());
    FAIL() << "replayed a recording nothing ties to the spec";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--replay-unverified"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(recording_problem(recording, test::source_dir(), false, true));
}

TEST_F(ReplayTest, RowsThatAreNotConfigsOfTheSpaceAreRefused) {
  auto store = open_sqlite_store(":memory:");
  Recording recording = testing::record_synthetic(*store, spec_, 1024, 0);
  const Problem problem = recording_problem(recording, test::source_dir());
  EXPECT_NO_THROW(check_recording_configs(recording, problem, "r.csv"));
  Recording evil = recording;
  evil.measurements[0].config = R"({"evil":1})";
  try {
    check_recording_configs(evil, problem, "r.csv");
    FAIL() << "a row's config that is no config of the space was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kSpec);
    EXPECT_NE(std::string(e.what()).find("r.csv: row 1"), std::string::npos) << e.what();
  }
  Recording beyond = recording;
  beyond.measurements[0].config_index = problem.space().size();
  EXPECT_THROW(check_recording_configs(beyond, problem, "r.csv"), Error);

  // The runner answers with the candidate's own config, never a row's text.
  auto runner = make_replay_runner(evil);
  Candidate c;
  c.variant.index = evil.measurements[0].config_index;
  c.variant.config = problem.space().json(c.variant.index);
  EXPECT_EQ(runner->run({c})[0].config, c.variant.config);
}

}  // namespace
}  // namespace gputune
