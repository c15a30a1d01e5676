// The GPU worker process and its watchdog, with a stand-in runner inside the worker: no GPU.
#include "process/process_runner.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "gputune/error.h"
#include "support/engine_fakes.h"

namespace gputune {
namespace {

using testing::quick_watchdog;
using testing::Script;
using testing::scripted;
using testing::ScriptedRunner;

Candidate candidate(uint64_t index) {
  Candidate c;
  c.variant.index = index;
  c.variant.config = "{\"I\":" + std::to_string(index) + "}";
  c.kernel.ok = true;
  c.kernel.image = "cubin";
  c.kernel.registers = 40;
  c.kernel.compile_ms = 3;
  return c;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// "pid start end" from ScriptedRunner's message.
struct Stamp {
  int pid = 0;
  double start = 0, end = 0;
};
Stamp stamp_of(const Measurement& m) {
  Stamp s;
  std::istringstream(m.message) >> s.pid >> s.start >> s.end;
  return s;
}

TEST(ProcessRunner, MeasuresInAWorkerProcess) {
  ProcessRunner runner({0}, scripted({}), quick_watchdog());
  EXPECT_EQ(runner.device().name, "Fake GPU");
  EXPECT_DOUBLE_EQ(runner.measure_copy_bandwidth(), 3000);
  Measurement reference = runner.set_reference(candidate(0));
  EXPECT_EQ(reference.status, Status::kOk);
  auto results = runner.run({candidate(1), candidate(2), candidate(3)});
  ASSERT_EQ(results.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(results[i].status, Status::kOk);
    EXPECT_EQ(results[i].config_index, i + 1);
    EXPECT_DOUBLE_EQ(results[i].median_ms(), 1 + (i + 1) / 10.0);
    EXPECT_EQ(results[i].registers, 40);
    EXPECT_DOUBLE_EQ(results[i].check_ms, 1);
    EXPECT_DOUBLE_EQ(results[i].time_ms, 2);
    EXPECT_NE(stamp_of(results[i]).pid, getpid()) << "measured in this process";
  }
  // The watchdog adapts: floor, or factor x best kernel time x launches if that is longer.
  EXPECT_NEAR(runner.limit_s(), 0.3 + 4 * 0.001, 1e-9);
}

TEST(ProcessRunner, HangIsKilledAsTimeoutAndANewWorkerTakesOver) {
  Script script;
  script.hang = {2};
  ProcessRunner runner({0}, scripted(script), quick_watchdog());
  runner.set_reference(candidate(0));
  const int first_pid = runner.worker_pids()[0];
  const auto start = std::chrono::steady_clock::now();
  auto results = runner.run({candidate(1), candidate(2), candidate(3)});
  const double s = seconds_since(start);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status, Status::kOk);
  EXPECT_EQ(results[1].status, Status::kTimeout) << results[1].message;
  EXPECT_NE(results[1].message.find("killed"), std::string::npos) << results[1].message;
  EXPECT_EQ(results[1].registers, 40) << "what the compiler said is kept";
  EXPECT_EQ(results[2].status, Status::kOk) << results[2].message;
  EXPECT_NE(stamp_of(results[2]).pid, first_pid);
  EXPECT_EQ(runner.stats().timeouts, 1);
  EXPECT_EQ(runner.stats().restarts, 1);
  EXPECT_LT(s, 3.0);
  EXPECT_EQ(kill(first_pid, 0), -1) << "the hung worker is gone and reaped";
}

TEST(ProcessRunner, StickyErrorIsTheVariantsAndTheWorkerIsReplaced) {
  Script script;
  script.sticky = {2};
  script.wrong = {4};
  script.resource = {5};
  ProcessRunner runner({0}, scripted(script), quick_watchdog());
  runner.set_reference(candidate(0));
  auto results = runner.run(
      {candidate(1), candidate(2), candidate(3), candidate(4), candidate(5), candidate(6)});
  ASSERT_EQ(results.size(), 6u);
  EXPECT_EQ(results[0].status, Status::kOk);
  EXPECT_EQ(results[1].status, Status::kRuntimeError);
  EXPECT_NE(results[1].message.find("ILLEGAL_ADDRESS"), std::string::npos);
  EXPECT_EQ(results[2].status, Status::kOk) << results[2].message;
  EXPECT_EQ(results[3].status, Status::kWrongAnswer);
  EXPECT_EQ(results[4].status, Status::kResourceExceeded);
  EXPECT_EQ(results[5].status, Status::kOk);
  EXPECT_NE(stamp_of(results[0]).pid, stamp_of(results[2]).pid);
  EXPECT_EQ(stamp_of(results[2]).pid, stamp_of(results[5]).pid)
      << "only a sticky error replaces the worker";
  EXPECT_EQ(runner.stats().restarts, 1);
  EXPECT_EQ(runner.stats().crashes, 0);
}

TEST(ProcessRunner, TheNextCandidateIsSentAheadForTheRunnerToLoad) {
  Script script;
  script.sleep_ms = 50;  // the next candidate reaches the worker while this one runs
  ProcessRunner runner({0}, scripted(script), quick_watchdog());
  runner.set_reference(candidate(0));
  EXPECT_EQ(runner.idle(), 1u);
  EXPECT_EQ(runner.accepting(), 2u) << "the one to run and the next";
  auto results = runner.run({candidate(1), candidate(2), candidate(3), candidate(4)});
  ASSERT_EQ(results.size(), 4u);
  for (size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].status, Status::kOk);
    EXPECT_EQ(results[i].config_index, i + 1);
    if (i > 0) {
      EXPECT_NE(results[i].message.find("prefetched"), std::string::npos)
          << "candidate " << i + 1 << " was not offered ahead: " << results[i].message;
    }
  }
}

TEST(ProcessRunner, ACandidateSentAheadOfAStickyErrorRunsOnTheNextWorker) {
  Script script;
  script.sticky = {1};
  script.sleep_ms = 20;
  ProcessRunner runner({0}, scripted(script), quick_watchdog());
  runner.set_reference(candidate(0));
  auto results = runner.run({candidate(1), candidate(2), candidate(3)});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status, Status::kRuntimeError);
  EXPECT_EQ(results[1].status, Status::kOk) << results[1].message;
  EXPECT_EQ(results[2].status, Status::kOk) << results[2].message;
  EXPECT_EQ(runner.stats().crashes, 0) << "candidate 2 was never started by the lost worker";
}

TEST(ProcessRunner, WorkerThatDiesTwiceOnAVariantMakesItARuntimeError) {
  Script script;
  script.abort = {2};
  ProcessRunner runner({0}, scripted(script), quick_watchdog());
  runner.set_reference(candidate(0));
  auto results = runner.run({candidate(1), candidate(2), candidate(3)});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status, Status::kOk);
  EXPECT_EQ(results[1].status, Status::kRuntimeError);
  EXPECT_NE(results[1].message.find("twice"), std::string::npos) << results[1].message;
  EXPECT_NE(results[1].message.find("signal 6"), std::string::npos) << results[1].message;
  EXPECT_EQ(results[2].status, Status::kOk);
  EXPECT_EQ(runner.stats().crashes, 2);
}

TEST(ProcessRunner, WorkerKilledFromOutsideLosesNothing) {
  Script script;
  script.sleep_ms = 300;
  ProcessRunner runner({0}, scripted(script), quick_watchdog());
  runner.set_reference(candidate(0));
  const int pid = runner.worker_pids()[0];
  const uint64_t ticket = runner.submit(candidate(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  std::vector<std::pair<uint64_t, Measurement>> results;
  while (results.empty()) results = runner.poll(-1);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].first, ticket);
  EXPECT_EQ(results[0].second.status, Status::kOk)
      << "measured again on the new worker: " << results[0].second.message;
  EXPECT_NE(stamp_of(results[0].second).pid, pid);
}

TEST(ProcessRunner, AWorkerThatCannotStartIsTheSearchsError) {
  Script script;
  script.fail_start = true;
  try {
    ProcessRunner runner({0}, scripted(script), quick_watchdog());
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNoGpu);
    EXPECT_NE(std::string(e.what()).find("--compile-only"), std::string::npos) << e.what();
  }
}

TEST(ProcessRunner, WorkersForSeveralDevicesMeasureAtTheSameTime) {
  Script script;
  script.sleep_ms = 150;
  ProcessRunner runner({0, 1}, scripted(script), quick_watchdog());
  ASSERT_EQ(runner.devices().size(), 2u);
  EXPECT_EQ(runner.devices()[1].ordinal, 1);
  runner.set_reference(candidate(0));
  EXPECT_EQ(runner.idle(), 2u);
  auto results = runner.run({candidate(1), candidate(2), candidate(3), candidate(4)});
  std::set<int> pids;
  bool overlap = false;
  for (size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].status, Status::kOk);
    pids.insert(stamp_of(results[i]).pid);
    for (size_t j = 0; j < i; ++j) {
      const Stamp a = stamp_of(results[i]), b = stamp_of(results[j]);
      if (a.pid != b.pid && a.start < b.end && b.start < a.end) overlap = true;
    }
  }
  EXPECT_EQ(pids.size(), 2u);
  EXPECT_TRUE(overlap) << "the two workers never measured at the same time";
}

TEST(ProcessRunner, DifferentGpusAreRefused) {
  Script script;
  script.distinct_models = true;
  try {
    ProcessRunner runner({0, 1}, scripted(script), quick_watchdog());
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("identical GPUs"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gputune

namespace gputune {
namespace {

TEST(ProcessRunner, WorkersSayTheyFillInputsWhenTheyStartAndStartAgain) {
  std::vector<SearchPhase> heard;
  Script script;
  script.sticky = {2};
  ProcessRunner runner({0}, scripted(script), quick_watchdog(),
                       [&](SearchPhase phase) { heard.push_back(phase); });
  EXPECT_EQ(heard, std::vector<SearchPhase>{SearchPhase::kFillingInputs});
  heard.clear();
  std::vector<SearchPhase> later;
  PhaseListener previous =
      runner.set_phase_listener([&](SearchPhase phase) { later.push_back(phase); });
  EXPECT_TRUE(previous) << "the constructor's listener comes back";
  runner.set_reference(candidate(0));
  auto results = runner.run({candidate(1), candidate(2), candidate(3)});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[2].status, Status::kOk) << "measured by the worker that started again";
  EXPECT_EQ(later, std::vector<SearchPhase>{SearchPhase::kFillingInputs});
  EXPECT_TRUE(heard.empty());
}

}  // namespace
}  // namespace gputune

namespace gputune {
namespace {

// A stand-in that keeps outputs as a GPU runner does for a host check: `out` holds the
// variant's index four times, `big` 3 MB of (index + position) bytes.
class KeepingRunner : public testing::ScriptedRunner {
 public:
  using ScriptedRunner::ScriptedRunner;
  Measurement set_reference(const Candidate& baseline) override {
    keep(baseline.variant.index);
    return ScriptedRunner::set_reference(baseline);
  }
  std::vector<Measurement> run(const std::vector<Candidate>& batch) override {
    std::vector<Measurement> results = ScriptedRunner::run(batch);
    keep(batch.back().variant.index);
    return results;
  }
  std::vector<std::vector<unsigned char>> take_checked_outputs() override {
    return std::exchange(kept_, {});
  }

 private:
  void keep(uint64_t index) {
    const float value = static_cast<float>(index);
    std::vector<unsigned char> out(4 * sizeof(float));
    for (int i = 0; i < 4; ++i) std::memcpy(out.data() + i * sizeof(float), &value, sizeof value);
    std::vector<unsigned char> big(3 << 20);
    for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<unsigned char>(index + i);
    kept_ = {out, big};
  }
  std::vector<std::vector<unsigned char>> kept_;
};

TEST(ProcessRunner, AJudgeSeesEachCheckedRunsOutputsTheBaselinesIncluded) {
  Script script;
  script.sticky = {3};
  std::vector<uint64_t> judged;
  OutputJudge judge = [&](Measurement* m, std::vector<std::vector<unsigned char>> outputs) {
    const uint64_t index = m->config_index;
    judged.push_back(index);
    ASSERT_EQ(outputs.size(), 2u);
    float value = -1;
    std::memcpy(&value, outputs[0].data() + 3 * sizeof(float), sizeof value);
    EXPECT_EQ(value, static_cast<float>(index)) << "another variant's outputs";
    ASSERT_EQ(outputs[1].size(), size_t{3} << 20);
    for (size_t i = 0; i < outputs[1].size(); i += 4099) {
      ASSERT_EQ(outputs[1][i], static_cast<unsigned char>(index + i)) << i;
    }
    if (index == 0 || index == 2) {
      m->status = Status::kWrongAnswer;
      m->message = "rejected " + std::to_string(index);
    }
  };
  ProcessRunner runner(
      {0, 1}, [script](int ordinal) { return std::make_unique<KeepingRunner>(script, ordinal); },
      quick_watchdog(), {}, judge);
  Measurement baseline = runner.set_reference(candidate(0));
  EXPECT_EQ(baseline.status, Status::kWrongAnswer) << "the baseline is judged like any variant";
  EXPECT_EQ(baseline.message, "rejected 0");
  auto results = runner.run({candidate(1), candidate(2), candidate(3), candidate(4)});
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].status, Status::kOk);
  EXPECT_EQ(results[1].status, Status::kWrongAnswer);
  EXPECT_EQ(results[1].message, "rejected 2");
  EXPECT_EQ(results[2].status, Status::kRuntimeError) << "a failed variant is not judged";
  EXPECT_EQ(results[3].status, Status::kOk);
  std::sort(judged.begin(), judged.end());
  EXPECT_EQ(judged, (std::vector<uint64_t>{0, 1, 2, 4}))
      << "once each; the second worker's baseline, and the restarted worker's, are not judged";
}

TEST(ProcessRunner, OutputsWithoutAJudgeAreDropped) {
  ProcessRunner runner(
      {0}, [](int ordinal) { return std::make_unique<KeepingRunner>(Script{}, ordinal); },
      quick_watchdog());
  // The worker sends what its runner keeps; the driver drops it unjudged.
  EXPECT_EQ(runner.set_reference(candidate(0)).status, Status::kOk);
  auto results = runner.run({candidate(1)});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, Status::kOk);
}

// Counters come from the worker that measures, on request, between measurements.
TEST(ProcessRunner, ProfilesInTheWorkerWithTheMetricsAsked) {
  ProcessRunner runner({0}, scripted({}), quick_watchdog());
  runner.set_reference(candidate(0));
  const RangeCounters counters =
      runner.profile(candidate(4), {{"smsp__inst_executed_op_global_ld.sum", "global loads"}}, 5);
  ASSERT_TRUE(counters.ok) << counters.message;
  ASSERT_EQ(counters.launches.size(), 1u);
  EXPECT_DOUBLE_EQ(counters.launches[0].at("global loads"), 4);
  EXPECT_EQ(counters.launches[0].count("smsp__inst_executed_op_global_ld.sum"), 0u);
  EXPECT_EQ(static_cast<int>(counters.launches[0].at("pid")), runner.worker_pids()[0]);
  EXPECT_EQ(runner.run({candidate(1)})[0].status, Status::kOk);  // measuring goes on
}

// Before set_reference() too: `gputune analyze --profiler cupti` measures nothing.
TEST(ProcessRunner, ProfilesBeforeAReferenceIsSet) {
  ProcessRunner runner({0}, scripted({}), quick_watchdog());
  EXPECT_TRUE(runner.profile(candidate(2), {{"a", "a"}}, 5).ok);
}

TEST(ProcessRunner, AProfileThatHangsCostsTheProfileAndItsWorkerNotTheSearch) {
  Script script;
  script.hang = {2};
  ProcessRunner runner({0}, scripted(script), quick_watchdog());
  runner.set_reference(candidate(0));
  const int first_pid = runner.worker_pids()[0];
  const auto start = std::chrono::steady_clock::now();
  const RangeCounters counters = runner.profile(candidate(2), {{"a", "a"}}, 0.5);
  EXPECT_LT(seconds_since(start), 5);
  EXPECT_FALSE(counters.ok);
  EXPECT_FALSE(counters.unavailable);
  EXPECT_NE(counters.message.find("longer than"), std::string::npos) << counters.message;
  EXPECT_NE(runner.worker_pids()[0], first_pid);
  const auto results = runner.run({candidate(1), candidate(3)});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, Status::kOk);
  EXPECT_EQ(results[1].status, Status::kOk);
  EXPECT_EQ(runner.stats().restarts, 1);
}

TEST(ProcessRunner, AProfileThatCrashesOrPoisonsItsWorkerGetsANewOne) {
  Script script;
  script.abort = {2};
  script.sticky = {3};
  ProcessRunner runner({0}, scripted(script), quick_watchdog());
  runner.set_reference(candidate(0));
  const RangeCounters crashed = runner.profile(candidate(2), {{"a", "a"}}, 5);
  EXPECT_FALSE(crashed.ok);
  EXPECT_NE(crashed.message.find("replaced"), std::string::npos) << crashed.message;
  EXPECT_EQ(runner.run({candidate(1)})[0].status, Status::kOk);
  const RangeCounters poisoned = runner.profile(candidate(3), {{"a", "a"}}, 5);
  EXPECT_FALSE(poisoned.ok);
  EXPECT_TRUE(poisoned.context_lost);
  EXPECT_EQ(runner.run({candidate(4)})[0].status, Status::kOk);
  EXPECT_TRUE(runner.profile(candidate(5), {{"a", "a"}}, 5).ok);
  EXPECT_EQ(runner.stats().restarts, 2);
}

}  // namespace
}  // namespace gputune
