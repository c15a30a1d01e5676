#include "space/engine_knobs.h"

#include <algorithm>
#include <filesystem>

#include "core/text.h"

namespace gputune {
namespace {

// The first line of Clang's diagnostics, with how many more there are.
std::string first_diagnostic(const std::string& diagnostics) {
  const size_t end = diagnostics.find('\n');
  if (end == std::string::npos) return diagnostics;
  const size_t more = std::count(diagnostics.begin(), diagnostics.end(), '\n');
  return diagnostics.substr(0, end) + " (and " + std::to_string(more) + " more)";
}

// "file:line:column: reason (`statement`)", or with `knob`, as the engine's refusals read:
// "file:line:column: knob: reason (`statement`)".
std::string verdict_text(const engine::KnobVerdict& verdict, const std::string& knob = "") {
  std::string text;
  const engine::SourcePlace* place = verdict.places.empty() ? nullptr : &verdict.places.front();
  if (place && place->line > 0 && verdict.reason.find(place->str()) == std::string::npos) {
    text = place->str() + ": ";
  }
  if (!knob.empty()) text += knob + ": ";
  text += verdict.reason;
  if (place && !place->text.empty() && text.find(place->text) == std::string::npos) {
    text += " (`" + place->text + "`)";
  }
  return text;
}

}  // namespace

std::string kernel_function_name(const std::string& kernel_name) {
  std::string name = trim(kernel_name.substr(0, kernel_name.find('<')));
  if (const size_t colons = name.rfind("::"); colons != std::string::npos) {
    name = name.substr(colons + 2);
  }
  return name;
}

EngineKnobs::EngineKnobs(const Spec& spec, const std::vector<Dimension>& dimensions)
    : kernel_path_(spec.kernel_path), kernel_source_(spec.kernel_source) {
  for (const ArgumentSpec& argument : spec.arguments) {
    if (argument.output) outputs_.push_back(argument.name);
  }
  for (size_t d = 0; d < dimensions.size(); ++d) {
    if (!dimensions[d].is_transform) continue;
    const SourceTransform* transform = find_source_transform(dimensions[d].name);
    if (!transform) continue;
    knobs_.push_back(
        {d, transform, dimensions[d].name, parse_transform_name(dimensions[d].name).target});
  }
}

bool EngineKnobs::neutral(const std::vector<Value>& values) const {
  return std::all_of(knobs_.begin(), knobs_.end(), [&](const Knob& knob) {
    return is_neutral(*knob.transform, values[knob.dimension]);
  });
}

bool EngineKnobs::neutral_at(const std::vector<Dimension>& dimensions,
                             const std::vector<size_t>& digits) const {
  return std::all_of(knobs_.begin(), knobs_.end(), [&](const Knob& knob) {
    return is_neutral(*knob.transform, dimensions[knob.dimension].values[digits[knob.dimension]]);
  });
}

MergeFactors EngineKnobs::factors(const std::vector<Value>& values) const {
  MergeFactors factors;
  for (const Knob& knob : knobs_) {
    const Value& value = values[knob.dimension];
    if (value.is_number()) factors.set(knob.name, value.as_number());
  }
  return factors;
}

MergeFactors EngineKnobs::factors_at(const std::vector<Dimension>& dimensions,
                                     const std::vector<size_t>& digits) const {
  MergeFactors factors;
  for (const Knob& knob : knobs_) {
    const Value& value = dimensions[knob.dimension].values[digits[knob.dimension]];
    if (value.is_number()) factors.set(knob.name, value.as_number());
  }
  return factors;
}

bool EngineKnobs::has(const std::string& base) const {
  return std::any_of(knobs_.begin(), knobs_.end(),
                     [&](const Knob& knob) { return knob.transform->name == base; });
}

engine::KernelUnit EngineKnobs::unit(const std::vector<std::string>& compile_options,
                                     const std::vector<std::string>& kernels,
                                     std::vector<engine::LaunchBinding> launches) const {
  engine::KernelUnit unit;
  if (!launches.empty()) {
    unit.launches = std::move(launches);
    unit.outputs = outputs_;
  }
  unit.file_name = kernel_path_;
  unit.text = kernel_source_;
  const std::string folder = std::filesystem::path(kernel_path_).parent_path().string();
  unit.include_dirs.push_back(folder.empty() ? "." : folder);
  // The options NVRTC gets: its spellings of include paths and macros.
  const auto macro = [&unit](const std::string& definition) {
    const size_t equals = definition.find('=');
    if (equals == std::string::npos) {
      unit.defines.emplace_back(definition, "1");
    } else {
      unit.defines.emplace_back(definition.substr(0, equals), definition.substr(equals + 1));
    }
  };
  for (const std::string& option : compile_options) {
    for (const char* prefix : {"--include-path=", "-I"}) {
      const std::string p = prefix;
      if (option.rfind(p, 0) == 0 && option.size() > p.size()) {
        const std::string dir = option.substr(p.size());
        if (std::find(unit.include_dirs.begin(), unit.include_dirs.end(), dir) ==
            unit.include_dirs.end()) {
          unit.include_dirs.push_back(dir);
        }
        break;
      }
    }
    for (const char* prefix : {"--define-macro=", "-D"}) {
      const std::string p = prefix;
      if (option.rfind(p, 0) == 0 && option.size() > p.size()) {
        macro(option.substr(p.size()));
        break;
      }
    }
  }
  for (const std::string& kernel : kernels) {
    const std::string name = kernel_function_name(kernel);
    if (std::find(unit.kernels.begin(), unit.kernels.end(), name) == unit.kernels.end()) {
      unit.kernels.push_back(name);
    }
  }
  return unit;
}

engine::SourceKnobs EngineKnobs::source_knobs(const std::vector<Value>& values,
                                              std::map<std::string, uint32_t> block_threads) const {
  engine::SourceKnobs knobs;
  for (const Knob& knob : knobs_) {
    const Value& value = values[knob.dimension];
    const std::string& base = knob.transform->name;
    if (base == "merge_layout") {
      knobs.merge_layout = value.as_symbol() == "consecutive" ? engine::MergeLayout::kConsecutive
                                                              : engine::MergeLayout::kStrided;
      continue;
    }
    const int number = static_cast<int>(value.as_number());
    if (base == "unroll") {
      knobs.unroll.emplace_back(knob.target, number);
    } else if (base == "pad_shared") {
      knobs.pad_shared.emplace_back(knob.target, number);
    } else if (base == kThreadMergeX) {
      knobs.thread_merge_x = number;
    } else if (base == kThreadMergeY) {
      knobs.thread_merge_y = number;
    } else if (base == kBlockMergeX) {
      knobs.block_merge_x = number;
    } else if (base == kBlockMergeY) {
      knobs.block_merge_y = number;
    } else if (base == "launch_bounds") {
      knobs.launch_bounds = number;
    } else if (base == "stage_shared") {
      knobs.stage_shared = number;
    } else if (base == "fuse") {
      knobs.fuse = number;
    } else if (base == "partition_offset") {
      knobs.partition_offset = number;
    } else if (base == "prefetch") {
      knobs.prefetch = number;
    } else if (base == "vector_width") {
      knobs.vector_width = number;
    } else if (base == "thread_split_x") {
      knobs.thread_split_x = number;
    }
  }
  knobs.block_threads = std::move(block_threads);
  return knobs;
}

void EngineKnobs::add_limits(const std::function<engine::KernelUnit()>& unit, SearchSpace* space,
                             const std::vector<size_t>& baseline_digits) {
  const std::vector<Dimension>& dimensions = space->dimensions();
  std::vector<size_t> asked;  // knobs whose values go beyond the neutral one
  std::vector<std::string> names;
  for (size_t k = 0; k < knobs_.size(); ++k) {
    const Knob& knob = knobs_[k];
    const auto& values = dimensions[knob.dimension].values;
    if (std::any_of(values.begin(), values.end(),
                    [&](const Value& v) { return !is_neutral(*knob.transform, v); })) {
      asked.push_back(k);
      names.push_back(knob.name);
    }
  }
  const auto neutral_holds = [this, dimensions_of = space](std::vector<size_t> knobs) {
    return [this, dimensions_of, knobs](const std::vector<size_t>& digits) {
      for (size_t k : knobs) {
        const Knob& knob = knobs_[k];
        const Value& v = dimensions_of->dimensions()[knob.dimension].values[digits[knob.dimension]];
        if (!is_neutral(*knob.transform, v)) return false;
      }
      return true;
    };
  };
  // Without a thread merge every layout is the same code: the baseline's layout stands for all.
  for (const Knob& layout : knobs_) {
    if (layout.transform->name != "merge_layout" ||
        dimensions[layout.dimension].values.size() < 2) {
      continue;
    }
    const size_t kept = baseline_digits[layout.dimension];
    const std::string kept_text = dimensions[layout.dimension].values[kept].text();
    space->add_limit({"set " + layout.name + " without a thread merge (the same code as " +
                          layout.name + "=" + kept_text + ")",
                      [this, space, kept, d = layout.dimension](const std::vector<size_t>& digits) {
                        if (digits[d] == kept) return true;
                        const MergeFactors f = factors_at(space->dimensions(), digits);
                        return f.thread_x != 1 || f.thread_y != 1;
                      }});
  }
  if (!asked.empty()) {
    analysis_ = engine::source_engine().analyse(unit(), names);
    if (!analysis_.parsed) {
      const std::string why = first_diagnostic(analysis_.diagnostics);
      note_ = why + "; the transformation engine cannot parse the kernel, so its knobs (" +
              join(names) + ") keep their neutral values";
      space->add_limit({"set the engine's knobs (" + join(names) +
                            "), and the engine cannot parse the kernel: " + why,
                        neutral_holds(asked)});
    } else {
      for (size_t k : asked) {
        const engine::KnobVerdict* verdict = analysis_.find(knobs_[k].name);
        if (verdict != nullptr && verdict->applies) continue;
        const std::string why = verdict ? verdict_text(*verdict) : "the engine says nothing of it";
        refused_.emplace_back(
            k, verdict ? verdict_text(*verdict, knobs_[k].name) : knobs_[k].name + ": " + why);
        space->add_limit({"set " + knobs_[k].name + " other than " +
                              knobs_[k].transform->neutral.text() +
                              ", which the engine refuses for this kernel: " + why,
                          neutral_holds({k})});
      }
    }
  }
}

std::string EngineKnobs::refusal(const std::vector<Value>& values) const {
  if (!note_.empty() && !neutral(values)) return note_;
  for (const auto& [k, why] : refused_) {
    if (!is_neutral(*knobs_[k].transform, values[knobs_[k].dimension])) return why;
  }
  return "";
}

}  // namespace gputune
