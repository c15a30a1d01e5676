// The bottleneck method drives the transformation engine's knobs: for each step the recorded
// H100 counters of tests/fixtures/ncu decide (some edited to reach the steps no capture
// reaches), the stored-counters path (variant_profile) names the engine knobs its remedies map
// onto, and the bottleneck strategy's remedy moves turn exactly those, the advised way.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>

#include "analysis/bottleneck.h"
#include "analysis/ncu_csv.h"
#include "profile/variant_counters.h"
#include "strategy/bottleneck_strategy.h"
#include "test_paths.h"
#include "transforms/source_transforms.h"

namespace gputune {
namespace {

CounterValues fixture(const std::string& name) {
  std::ifstream in(test::source_dir() + "/tests/fixtures/ncu/" + name + ".raw.csv");
  std::stringstream text;
  text << in.rdbuf();
  const auto kernels = parse_ncu_raw_csv(text.str(), name);
  EXPECT_EQ(kernels.size(), 1u) << name;
  return kernels.at(0).values;
}

// A spec with every engine knob (a kernel without macros): the space the engine's knobs make.
Spec engine_spec(bool with_merge_layout = true) {
  const auto numbers = [](std::initializer_list<int64_t> values) {
    std::vector<Value> out;
    for (int64_t v : values) out.emplace_back(v);
    return out;
  };
  Spec spec;
  spec.transforms.push_back({"stage_shared", numbers({0, 1}), {}, true});
  spec.transforms.push_back({"pad_shared", numbers({0, 1}), {}, true});
  spec.transforms.push_back({"thread_merge_y", numbers({1, 2, 4}), {}, true});
  if (with_merge_layout) {
    spec.transforms.push_back({"merge_layout",
                               {Value(std::string("strided")), Value(std::string("consecutive"))},
                               {},
                               true});
  }
  spec.transforms.push_back({"block_merge_x", numbers({1, 2, 4}), {}, true});
  spec.transforms.push_back({"unroll", numbers({0, 2, 4}), {}, true});
  spec.transforms.push_back({"launch_bounds", numbers({0, 1, 2}), {}, true});
  return spec;
}

struct Case {
  std::string name;
  CounterValues counters;
  std::string step;
  // The engine knobs the step's remedies map onto, each with its way ("+" raise, "-" lower,
  // "=" a named value, "~" either).
  std::map<std::string, std::string> knobs;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  // DRAM at 90% of peak: fewer bytes through shared memory (staging, block merge).
  out.push_back({"copy: memory bound",
                 fixture("copy"),
                 "global memory",
                 {{"stage_shared", "+"}, {"block_merge_x", "+"}}});
  // 15.7 conflicts per shared request: padding, and a merged thread's outputs strided.
  out.push_back({"transpose PAD=0: bank conflicts",
                 fixture("transpose_pad0"),
                 "shared memory",
                 {{"pad_shared", "~"}, {"merge_layout", "="}, {"thread_merge_y", "+"}}});
  // Occupancy 6% against 100% required, not limited by registers: more parallelism (block
  // merge either way), more independent work per thread, staging.
  out.push_back(
      {"GEMV baseline: global-memory latency",
       fixture("gemv_base"),
       "global memory",
       {{"block_merge_x", "~"}, {"thread_merge_y", "+"}, {"unroll", "+"}, {"stage_shared", "+"}}});
  // The same with registers limiting occupancy: the register cap first, smaller merges.
  Case occupancy{"GEMV baseline, registers limit occupancy",
                 fixture("gemv_base"),
                 "global memory",
                 {{"launch_bounds", "+"},
                  {"thread_merge_y", "-"},
                  {"block_merge_x", "~"},
                  {"unroll", "+"},
                  {"stage_shared", "+"}}};
  occupancy.counters["launch__occupancy_limit_registers"] = 1;
  for (const char* other : {"launch__occupancy_limit_shared_mem", "launch__occupancy_limit_warps",
                            "launch__occupancy_limit_blocks", "launch__occupancy_limit_barriers"}) {
    occupancy.counters[other] = 32;
  }
  out.push_back(occupancy);
  // The naive SGEMM's counters with few eligible warps, most stalls waiting on results.
  Case dependency{"execution dependency",
                  fixture("sgemm_naive"),
                  "execution dependency",
                  {{"block_merge_x", "~"}, {"thread_merge_y", "+"}, {"unroll", "+"}}};
  dependency.counters["smsp__warps_eligible.avg.per_cycle_active"] = 0.3;
  dependency.counters["smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"] =
      100;
  out.push_back(dependency);
  // Issue slots 80% busy on the FMA pipe: thread merge shares the address arithmetic.
  out.push_back({"best SGEMM: instruction bound",
                 fixture("sgemm_best"),
                 "instructions",
                 {{"thread_merge_y", "+"}}});
  return out;
}

std::string way(const RemedyKnob& knob) {
  if (!knob.value.empty()) return "=";
  switch (knob.direction) {
    case KnobDirection::kRaise:
      return "+";
    case KnobDirection::kLower:
      return "-";
    case KnobDirection::kEither:
      break;
  }
  return "~";
}

TEST(EngineRemedies, EachStepNamesTheEngineKnobsItsRemediesMapOnto) {
  const Spec spec = engine_spec();
  for (const Case& c : cases()) {
    const VariantProfile profile = variant_profile(spec, c.counters, 0);
    EXPECT_EQ(profile.step, c.step) << c.name;
    std::map<std::string, std::string> named;
    for (const RemedyKnob& knob : profile.knobs) named[knob.name] = way(knob);
    EXPECT_EQ(named, c.knobs) << c.name;
  }
}

TEST(EngineRemedies, BankConflictsSetTheMergeLayoutToStrided) {
  const VariantProfile profile = variant_profile(engine_spec(), fixture("transpose_pad0"), 0);
  const auto layout = std::find_if(profile.knobs.begin(), profile.knobs.end(),
                                   [](const RemedyKnob& k) { return k.name == "merge_layout"; });
  ASSERT_NE(layout, profile.knobs.end());
  EXPECT_EQ(layout->value, "strided");
  EXPECT_EQ(describe_remedy_knob(*layout), "set merge_layout to strided");
}

// The knobs engineer M adds (vector_width, prefetch) map once the engine has them: a DRAM-bound
// variant raises vector_width, one stalled on dependencies raises prefetch.
TEST(EngineRemedies, VectorWidthAndPrefetchMapWhereTheEngineHasThem) {
  const std::vector<std::pair<std::string, std::string>> optional = {{"vector_width", "copy"},
                                                                     {"prefetch", "sgemm_naive"}};
  for (const auto& [knob, capture] : optional) {
    const SourceTransform* transform = find_source_transform(knob);
    if (transform == nullptr) continue;  // not a knob of this build's engine yet
    Spec spec = engine_spec();
    std::vector<Value> values = {transform->neutral};
    for (const Value& v : transform->suggested) {
      if (!is_neutral(*transform, v)) values.push_back(v);
    }
    spec.transforms.push_back({knob, values, {}, true});
    CounterValues counters = fixture(capture);
    if (knob == "prefetch") {
      counters["smsp__warps_eligible.avg.per_cycle_active"] = 0.3;
      counters["smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"] = 100;
    }
    const VariantProfile profile = variant_profile(spec, counters, 0);
    const auto found = std::find_if(profile.knobs.begin(), profile.knobs.end(),
                                    [&](const RemedyKnob& k) { return k.name == knob; });
    ASSERT_NE(found, profile.knobs.end()) << knob << " on " << capture << ": " << profile.step;
    EXPECT_EQ(found->direction, KnobDirection::kRaise) << knob;
  }
}

// Answers every profile with one case's counters, judged in the spec's terms as a search's
// stored counters are.
class RecordedCounters : public VariantProfiler {
 public:
  RecordedCounters(const Spec& spec, const CounterValues& counters)
      : profile_(variant_profile(spec, counters, 0)) {}
  std::optional<double> elapsed_s() const override { return std::nullopt; }
  double expected_cost_s(uint64_t) const override { return 0; }
  VariantProfile profile(const Measurement&) override { return profile_; }

 private:
  VariantProfile profile_;
};

TEST(EngineRemedies, TheBottleneckStrategyTurnsTheMappedKnobsTheAdvisedWay) {
  const Spec spec = engine_spec();
  std::vector<Dimension> dimensions;
  for (const ParameterSpec& t : spec.transforms) dimensions.push_back({t.name, t.values, true});
  const SearchSpace space(dimensions, {}, Scope());
  // A made-up time per config, the same for every case.
  const auto measure = [](uint64_t index) {
    Measurement m;
    m.config_index = index;
    m.samples_ms = {1.0 + static_cast<double>((index * 2654435761u) % 1000) / 1000};
    m.time_ms = 1;
    return m;
  };
  for (const Case& c : cases()) {
    RecordedCounters profiler(spec, c.counters);
    BottleneckStrategy bottleneck(3);
    StrategyContext context(space);
    context.profiler = &profiler;
    bottleneck.start(context);
    std::set<std::string> turned;
    for (int batch = 0; batch < 15; ++batch) {
      const std::optional<uint64_t> steering = bottleneck.stats().steering;
      const size_t before = bottleneck.stats().remedy_moves;
      const auto proposal = bottleneck.propose(4);
      ASSERT_FALSE(proposal.empty()) << c.name;
      if (bottleneck.stats().remedy_moves > before) {
        const auto from = space.decode(*steering), to = space.decode(proposal[0]);
        for (size_t d = 0; d < from.size(); ++d) {
          if (from[d] == to[d]) continue;
          const std::string& knob = dimensions[d].name;
          ASSERT_TRUE(c.knobs.count(knob)) << c.name << ": a remedy move turned " << knob;
          const Value& a = dimensions[d].values[from[d]];
          const Value& b = dimensions[d].values[to[d]];
          const std::string& advised = c.knobs.at(knob);
          if (advised == "+") EXPECT_GT(b.as_number(), a.as_number()) << c.name << " " << knob;
          if (advised == "-") EXPECT_LT(b.as_number(), a.as_number()) << c.name << " " << knob;
          if (advised == "=") EXPECT_EQ(b.text(), "strided") << c.name << " " << knob;
          turned.insert(knob);
        }
      }
      std::vector<Measurement> results;
      for (uint64_t index : proposal) results.push_back(measure(index));
      bottleneck.observe(results);
      if (bottleneck.wants_idle_gpu()) bottleneck.use_idle_gpu();
    }
    EXPECT_EQ(bottleneck.stats().step, c.step) << c.name;
    EXPECT_FALSE(turned.empty()) << c.name << ": no remedy move";
  }
}

}  // namespace
}  // namespace gputune
