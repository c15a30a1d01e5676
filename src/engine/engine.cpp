#include "engine/engine.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "engine/access_analysis.h"
#include "engine/fusion_analysis.h"
#include "engine/parsed_kernel.h"
#include "engine/stage_shared.h"
#include "engine/transformation.h"

namespace gputune::engine {
namespace {

struct Registered {
  int rank;
  std::unique_ptr<Transformation> transformation;
};

std::vector<Registered>& registry() {
  static std::vector<Registered> entries;
  return entries;
}

// What identifies a parse: everything of the unit the compiler sees.
std::string unit_key(const KernelUnit& unit) {
  std::string key = unit.file_name + '\0' + unit.text + '\0';
  for (const std::string& dir : unit.include_dirs) key += dir + '\0';
  key += '\1';
  for (const auto& [name, value] : unit.defines) key += name + '=' + value + '\0';
  key += '\1';
  for (const std::string& kernel : unit.kernels) key += kernel + '\0';
  for (const LaunchBinding& launch : unit.launches) {
    key += '\1' + launch.kernel + '\0';
    for (const std::string& argument : launch.arguments) key += argument + '\0';
    for (uint32_t extent : launch.block) key += std::to_string(extent) + ',';
    for (uint32_t extent : launch.grid) key += std::to_string(extent) + ',';
  }
  key += '\1';
  for (const std::string& output : unit.outputs) key += output + '\0';
  return key;
}

}  // namespace

TransformationRegistrar::TransformationRegistrar(int rank,
                                                 std::unique_ptr<Transformation> transformation) {
  auto& entries = registry();
  entries.push_back({rank, std::move(transformation)});
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Registered& a, const Registered& b) { return a.rank < b.rank; });
}

const std::vector<const Transformation*>& transformations() {
  static const std::vector<const Transformation*> ordered = [] {
    std::vector<const Transformation*> list;
    for (const Registered& entry : registry()) list.push_back(entry.transformation.get());
    return list;
  }();
  return ordered;
}

KnobName KnobName::parse(const std::string& knob) {
  const size_t open = knob.find('(');
  if (open == std::string::npos || knob.back() != ')') return {knob, ""};
  return {knob.substr(0, open), knob.substr(open + 1, knob.size() - open - 2)};
}

bool SourceKnobs::neutral() const {
  for (const Transformation* transformation : transformations()) {
    if (transformation->active(*this)) return false;
  }
  return true;
}

std::string SourcePlace::str() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

const KnobVerdict* Analysis::find(const std::string& knob) const {
  for (const KnobVerdict& verdict : knobs) {
    if (verdict.knob == knob) return &verdict;
  }
  return nullptr;
}

struct SourceEngine::State {
  std::mutex mutex;
  // Parses of the units asked about (the originals, one per distinct set of defines).
  std::unordered_map<std::string, std::shared_ptr<ParsedKernel>> parses;
  // Rewrites by unit and the knob values of each transformation up to one: a variant shares
  // the rewrite of every earlier step with the variants that agree on it.
  std::unordered_map<std::string, Rewrite> rewrites;

  std::shared_ptr<ParsedKernel> parse(const KernelUnit& unit) {
    const std::string key = unit_key(unit);
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto found = parses.find(key);
      if (found != parses.end()) return found->second;
    }
    std::shared_ptr<ParsedKernel> parsed = ParsedKernel::parse(unit);
    std::lock_guard<std::mutex> lock(mutex);
    return parses.emplace(key, std::move(parsed)).first->second;
  }
};

SourceEngine::SourceEngine() : state_(std::make_unique<State>()) {}
SourceEngine::~SourceEngine() = default;

std::shared_ptr<const ParsedKernel> SourceEngine::parse(const KernelUnit& unit) {
  return state_->parse(unit);
}

Analysis SourceEngine::analyse(const KernelUnit& unit, const std::vector<std::string>& knobs) {
  Analysis analysis;
  std::shared_ptr<ParsedKernel> kernel = state_->parse(unit);
  analysis.parsed = kernel->ok();
  analysis.diagnostics = kernel->diagnostics();
  if (kernel->ok()) {
    analysis.accesses = access_facts(*kernel);
    analysis.staged_tiles = stage_shared_tiles(*kernel);
    analysis.fusion = analyse_fusion(*kernel).facts;
  }
  std::vector<std::string> asked = knobs;
  if (asked.empty()) {
    for (const Transformation* transformation : transformations()) {
      for (const std::string& knob : transformation->knobs()) asked.push_back(knob);
    }
  }
  for (const std::string& knob : asked) {
    const KnobName name = KnobName::parse(knob);
    const Transformation* owner = nullptr;
    for (const Transformation* transformation : transformations()) {
      const std::vector<std::string> own = transformation->knobs();
      if (std::find(own.begin(), own.end(), name.base) != own.end()) owner = transformation;
    }
    KnobVerdict verdict;
    verdict.knob = knob;
    if (!owner) {
      verdict.reason = "not a knob of the engine";
    } else if (!kernel->ok()) {
      verdict.reason = "the kernel does not parse: " + kernel->diagnostics();
    } else if (kernel->kernels().empty()) {
      verdict.reason = "no __global__ function of " + unit.file_name + " is launched";
    } else {
      verdict = owner->verdict(*kernel, name);
      verdict.knob = knob;
    }
    analysis.knobs.push_back(std::move(verdict));
  }
  // pad_shared pads the tiles stage_shared creates, on a kernel that has none of its own.
  for (KnobVerdict& verdict : analysis.knobs) {
    if (verdict.knob != "pad_shared" || verdict.applies || !kernel->ok() ||
        kernel->kernels().empty()) {
      continue;
    }
    const Transformation* stage = nullptr;
    for (const Transformation* transformation : transformations()) {
      const std::vector<std::string> own = transformation->knobs();
      if (std::find(own.begin(), own.end(), "stage_shared") != own.end()) {
        stage = transformation;
      }
    }
    const KnobVerdict staged = stage->verdict(*kernel, {"stage_shared", ""});
    if (!staged.applies) continue;
    verdict.applies = true;
    verdict.reason =
        "pads the tiles of stage_shared (with stage_shared: 1; " + verdict.reason + " as written)";
    verdict.places = staged.places;
  }
  return analysis;
}

Rewrite SourceEngine::rewrite(const KernelUnit& unit, const SourceKnobs& knobs) {
  std::shared_ptr<ParsedKernel> original = state_->parse(unit);
  if (!original->ok()) {
    return {
        false, "",
        "the kernel does not parse, so the engine cannot rewrite it: " + original->diagnostics()};
  }
  Rewrite current{true, unit.text, ""};
  std::string key = unit_key(unit);
  std::shared_ptr<ParsedKernel> kernel = original;
  for (const Transformation* transformation : transformations()) {
    if (!transformation->active(knobs)) continue;
    key += '\2' + transformation->key(knobs);
    {
      std::lock_guard<std::mutex> lock(state_->mutex);
      auto found = state_->rewrites.find(key);
      if (found != state_->rewrites.end()) {
        current = found->second;
        kernel.reset();
        if (!current.ok) return current;
        continue;
      }
    }
    if (!kernel) {
      KernelUnit step = unit;
      step.text = current.source;
      kernel = ParsedKernel::parse(step);
      if (!kernel->ok()) {
        return {false, "",
                "the engine's own rewrite does not parse (a bug in the engine): " +
                    kernel->diagnostics()};
      }
      kernel->set_original(original);
    }
    current = transformation->apply(*kernel, knobs);
    kernel.reset();
    {
      std::lock_guard<std::mutex> lock(state_->mutex);
      state_->rewrites.emplace(key, current);
    }
    if (!current.ok) return current;
  }
  return current;
}

SourceEngine& source_engine() {
  static SourceEngine engine;
  return engine;
}

}  // namespace gputune::engine
