#pragma once
// One lookup's tiers below the overrides (selector.cpp): the exact problem on this device, the
// nearest stored problems (their kept configs weighed by launch fill), the same GPU family,
// and the cost model's ranking of the kept configs.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gputune/runtime.h"
#include "runtime/selector_state.h"

namespace gputune::runtime {

// A kernel entry of one layer that may answer.
struct LayerKernel {
  size_t layer = 0;
  const ReleaseFile* file = nullptr;
  const ReleaseKernel* kernel = nullptr;
  std::shared_ptr<KernelRules> rules;
};

// What a tier answers with.
struct TierAnswer {
  Config config;
  std::vector<LaunchGeometry> launches;
  double distance = 0, predicted_ms = -1;
  int64_t config_id = -1;  // in the answering layer; -1: none there
  std::string detail;      // for the explanation
};

// "TILE=32, VEC=4": a config in explanations.
std::string config_text(const Config& config);

// A kept config of a stored problem point, valid at the target, carried there.
struct CarriedConfig {
  const ParsedChoice* choice = nullptr;
  Config config;
  std::vector<LaunchGeometry> launches;  // at the target
  double distance = 0;
  double fill_there = 1, fill_here = 1;  // launch_fill at its point and at the target
  double estimate = 1;                   // its estimated regret at the target
};

class TierSearch {
 public:
  TierSearch(SelectorState& state, const DeviceDescription& device, const ProblemValues& problem)
      : state_(state), device_(device), problem_(problem) {}

  // The tiers, each true with an answer or false with why not. exact: this device's stored
  // choices at this problem (`exact_only`), else at the nearest other problems.
  bool exact(const LayerKernel& c, TierAnswer* answer, std::string* why, bool exact_only);

  // Another device of the same compute capability major, nearest in SMs and minor version.
  bool family(const LayerKernel& c, TierAnswer* answer, std::string* why);

  // The cost model of layer `layer`, trained on the file's observations, ranks the kept
  // configs valid here.
  bool model(const LayerKernel& c, size_t layer, TierAnswer* answer, std::string* why);

 private:
  // A choice's stored config, parsed; nullopt, with why, when the file lacks it or it names
  // parameters the kernel does not have.
  std::optional<Config> stored_config(const LayerKernel& c, const ParsedChoice& choice,
                                      std::string* why) const;

  // Whether a choice's config is valid at the target problem on this device, with its launches
  // there; says why not.
  bool valid_here(const LayerKernel& c, const ParsedChoice& choice, const Config& config,
                  std::vector<LaunchGeometry>* launches, std::string* why) const;

  // The first valid config among the ranked choices of one stored problem point.
  bool first_valid(const LayerKernel& c, const std::vector<const ParsedChoice*>& ranked,
                   double dist, TierAnswer* answer, std::string* why);

  // Exact or nearest problem among one stored device's choices. `exact_only`: distance 0.
  bool on_device(const LayerKernel& c, int64_t device_id, bool exact_only, TierAnswer* answer,
                 std::string* why);

  // Adds the kept configs of one stored point that are valid at the target, with their
  // estimated cost there relative to the point's best. A launch's time goes as its work over
  // its launch fill (blocks over the SM slots its waves take), so a config's work rate at the
  // point, relative to the point's best, is (best time x best's fill) / (its time x its
  // fill); at the target it runs at that rate times its fill there. Comparing configs of
  // different points this way assumes each point's best runs at the same rate, which is what
  // being the best at a point suggests.
  void carry(const LayerKernel& c, const std::vector<const ParsedChoice*>& ranked, double dist,
             const DeviceDescription& there, std::vector<CarriedConfig>* carried, std::string* why);

  // The nearest point's first valid config, unless another carried config's estimate is lower
  // by more than the noise; ties go to the nearer point, then the better rank.
  void answer_carried(const std::vector<CarriedConfig>& carried, size_t points, double window,
                      TierAnswer* answer);

  SelectorState& state_;
  const DeviceDescription& device_;
  const ProblemValues& problem_;
};

}  // namespace gputune::runtime
