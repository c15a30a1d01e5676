#include <filesystem>
#include <optional>
#include <unordered_map>

#include "core/config_codec.h"
#include "core/exact_text.h"
#include "gputune/error.h"
#include "replay/replay.h"
#include "spec/spec_loader.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

// Enough once every recorded sample has been served: the recording stopped where the GPU's
// stopping rule did.
class RecordedLength : public StoppingRule {
 public:
  explicit RecordedLength(size_t samples) : samples_(samples) {}
  bool warmed_up(double, bool) const override { return true; }
  bool enough(const std::vector<double>& samples_ms, double) const override {
    return samples_ms.size() >= samples_;
  }

 private:
  size_t samples_;
};

// A racing candidate gets the recorded samples one at a time, in their recorded order, until
// the race cuts it or the recording's samples run out (a full measurement). Asked again (the
// final re-measurement's rounds), it serves the same samples from the first: a replay has no
// others. A variant the recording holds cut short stays cut short.
Measurement race_through(const Measurement& recorded, const RaceLimit& race) {
  if (!race.active() || recorded.status != Status::kOk || recorded.samples_ms.empty()) {
    return recorded;
  }
  size_t next = 0;
  TimedSamples timed = collect_samples(
      RecordedLength(recorded.samples_ms.size()), [] {},
      [&] { return recorded.samples_ms[next++]; }, race, [] { return 0.0; });
  Measurement m = recorded;
  m.samples_ms = std::move(timed.samples_ms);
  m.cut_short = recorded.cut_short || timed.cut_short ? 1 : 0;
  return m;
}

class ReplayRunner : public Runner {
 public:
  explicit ReplayRunner(Recording recording) : info_(std::move(recording.info)) {
    for (auto& m : recording.measurements) {
      by_index_[m.config_index] = std::move(m);
    }
  }

  const DeviceInfo& device() const override { return info_.device; }

  Measurement set_reference(const Candidate& baseline) override { return answer(baseline); }

  std::vector<Measurement> run(const std::vector<Candidate>& batch) override {
    std::vector<Measurement> out;
    out.reserve(batch.size());
    for (const auto& c : batch) out.push_back(answer(c));
    return out;
  }

  double measure_copy_bandwidth() override { return info_.copy_bandwidth_gbs; }

 private:
  Measurement answer(const Candidate& c) const {
    auto found = by_index_.find(c.variant.index);
    if (found != by_index_.end()) {
      // The config is the space's: what is stored under a config index is never a row's text.
      Measurement m = race_through(found->second, c.race);
      m.config = c.variant.config;
      return m;
    }
    return unrecorded(c.variant.index, c.variant.config);
  }

  RecordingInfo info_;
  std::unordered_map<uint64_t, Measurement> by_index_;
};

class ReplayCompiler : public Compiler {
 public:
  CompiledKernel compile(const CompileRequest& request) override {
    CompiledKernel kernel;
    kernel.ok = true;
    kernel.lowered_names = request.kernel_name_expressions;
    return kernel;
  }
};

}  // namespace

Problem recording_problem(const Recording& recording, const std::string& repo_root,
                          bool allow_changed_spec, bool allow_unverified) {
  const RecordingInfo& info = recording.info;
  fs::path spec_path = fs::path(info.spec_path).is_absolute()
                           ? fs::path(info.spec_path)
                           : fs::path(repo_root) / info.spec_path;
  Overrides overrides;
  if (!info.problem_json.empty()) {
    const std::optional<ProblemValues> values = problem_from_json(info.problem_json);
    if (!values) {
      throw Error(ErrorCode::kIo,
                  "recording problem values '" + info.problem_json + "' are not a JSON object");
    }
    for (const auto& [name, value] : *values) overrides.push_back({name, exact_text(value)});
  }
  Spec spec = load_spec(spec_path.string(), overrides);
  // A recording that says its measurement hash replays against any text with the same one (the
  // spec with remedies added, say); an older one needs the very text it was made with.
  const bool spec_changed = !info.measurement_hash.empty()
                                ? spec.measurement_hash() != info.measurement_hash
                                : spec.spec_hash() != info.spec_hash;
  const bool checkable = !info.measurement_hash.empty() || !info.spec_hash.empty();
  if (!checkable && !allow_unverified) {
    throw Error(ErrorCode::kUsage,
                "the recording has no spec_hash or measurement_hash line, so nothing shows it "
                "was measured with " +
                    spec_path.string() +
                    "; pass --replay-unverified (replay_unverified=True in Python) to replay it "
                    "anyway (its configs are still "
                    "checked against the space)");
  }
  if (!allow_changed_spec && checkable &&
      (spec_changed || (!info.source_hash.empty() && spec.source_hash() != info.source_hash))) {
    throw Error(ErrorCode::kUsage, spec_path.string() +
                                       ": the spec or its kernel changed since the recording "
                                       "was made, so its config indices may not match");
  }
  return Problem(std::move(spec));
}

void check_recording_configs(const Recording& recording, const Problem& problem,
                             const std::string& path) {
  const SearchSpace& space = problem.space();
  for (size_t row = 0; row < recording.measurements.size(); ++row) {
    const Measurement& m = recording.measurements[row];
    if (m.config_index >= space.size() || space.json(m.config_index) != m.config) {
      throw Error(ErrorCode::kSpec,
                  path + ": row " + std::to_string(row + 1) + " records config " +
                      std::to_string(m.config_index) + " as " + m.config +
                      (m.config_index < space.size()
                           ? ", and it is " + space.json(m.config_index)
                           : ", beyond the space's " + std::to_string(space.size()) + " configs") +
                      " in " + problem.spec().path + "; expected a recording of this spec");
    }
  }
}

std::unique_ptr<Runner> make_replay_runner(Recording recording) {
  return std::make_unique<ReplayRunner>(std::move(recording));
}

std::unique_ptr<Runner> make_replay_runner(const Store& store, int64_t workload) {
  // The runner never reads the recording's spec path: it stays as stored.
  return make_replay_runner(recording_from_store(store, workload, ""));
}

std::unique_ptr<Compiler> make_replay_compiler() { return std::make_unique<ReplayCompiler>(); }

}  // namespace gputune
