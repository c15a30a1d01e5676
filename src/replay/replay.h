#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compile/compiler.h"
#include "replay/recording.h"
#include "run/runner.h"
#include "space/problem.h"
#include "store/store.h"

namespace gputune {

// The recording's spec at its problem values: `repo_root`/spec_path (spec_path itself when
// absolute) with the problem values as
// --set overrides. Throws Error(kUsage) when the spec's hash differs from the recorded one
// (the space may have changed), unless `allow_changed_spec`, and when the recording has no
// hash to compare (spec_hash or measurement_hash), unless `allow_unverified`.
Problem recording_problem(const Recording& recording, const std::string& repo_root,
                          bool allow_changed_spec = false, bool allow_unverified = false);

// Every row of the recording is a config of `problem`'s space: its index within the product
// and its config JSON that index's. A row that is not could put another config (or none)
// into the store under a measured name. Throws Error(kSpec) naming `path` and the row.
void check_recording_configs(const Recording& recording, const Problem& problem,
                             const std::string& path);

// What a replay answers for a config its recording lacks: kRuntimeError "not in the recording".
// It is no measurement: a replay's store keeps it out (keep_answered), and a search measures
// again one that a database holds (replays before keep_answered stored them).
Measurement unrecorded(uint64_t config_index, const std::string& config);
bool is_unrecorded(const Measurement& m);
// `store` for a replay: everything goes through to it except the commits of unrecorded()
// answers, so that a real run into the same database later measures those configs.
std::unique_ptr<Store> keep_answered(Store& store);

// A Runner that answers from a recording instead of a GPU: recorded statuses (compile errors
// included), samples, compile times and resources. A config that was not recorded is
// unrecorded(). A racing candidate is served the recorded samples
// one at a time and may be cut short (samples_ms then a prefix of the recorded ones).
std::unique_ptr<Runner> make_replay_runner(Recording recording);
std::unique_ptr<Runner> make_replay_runner(const Store& store, int64_t workload);

// Takes as long as the recording says each variant took to compile, check and time (its
// compile_ms, check_ms and time_ms, or its samples where time_ms is not recorded), so that a replay
// exercises the search's machinery in real time: `gputune search --replay FILE --replay-real-time`.
std::unique_ptr<Runner> pace_like_recorded(std::unique_ptr<Runner> runner);

// A Compiler for replay: every request succeeds at no cost, because the replay runner reports
// the recorded compile failures itself.
std::unique_ptr<Compiler> make_replay_compiler();

}  // namespace gputune
