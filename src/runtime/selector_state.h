#pragma once
// What a Selector shares with the selections it hands out: the layers, the memo, the
// warnings, and what is built on first use (kernel rules, models, loaded modules).
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gputune/runtime.h"
#include "runtime/kernel_rules.h"
#include "runtime/model_ranker.h"
#include "runtime/release_file.h"

namespace gputune::runtime {

struct LoadedCode;  // runtime/gpu.cpp

struct SelectorState {
  Options options;
  std::vector<std::unique_ptr<ReleaseFile>> layers;  // in priority order; opened ones only

  std::shared_mutex overrides_mutex;
  std::vector<Override> overrides;

  std::shared_mutex memo_mutex;
  std::unordered_map<std::string, Selection> memo;  // selections without state_

  std::mutex warnings_mutex;
  std::vector<std::string> warnings;
  std::set<std::string> warned;

  std::mutex lazy_mutex;  // the three maps below
  // (layer, kernel id) -> rules; null where spec_json does not compile
  std::map<std::pair<size_t, int64_t>, std::shared_ptr<KernelRules>> rules;
  std::map<std::pair<size_t, int64_t>, std::shared_ptr<ModelRanker>> models;
  std::map<std::pair<size_t, int64_t>, std::shared_ptr<LoadedCode>> code;

  // Records a cause of bad input once; throws it instead in strict mode.
  void warn(const std::string& cause);
};

}  // namespace gputune::runtime
