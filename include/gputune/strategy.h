#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gputune/measurement.h"
#include "gputune/search_space.h"

namespace gputune {

// Ask/tell search driver. An empty proposal ends the search.
class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual void start(const SearchSpace& space, const std::vector<Measurement>& prior) = 0;
  virtual std::vector<uint64_t> propose(size_t max_batch) = 0;
  virtual void observe(const std::vector<Measurement>& results) = 0;
};

std::vector<std::string> strategy_names();
// Throws Error(kUsage) for an unknown name, listing the known ones.
std::unique_ptr<Strategy> make_strategy(const std::string& name, uint64_t seed);

}  // namespace gputune
