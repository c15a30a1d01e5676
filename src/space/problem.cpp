#include "space/problem.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/text.h"
#include "gputune/error.h"
#include "space/engine_knobs.h"
#include "space/fused_launches.h"
#include "transforms/generic_transform.h"

namespace gputune {
namespace {

constexpr double kMaxLaunchValue = 2147483647.0;  // 2^31 - 1

[[noreturn]] void fail(const SourceLocation& where, const std::string& what) {
  throw Error(ErrorCode::kSpec, where.message(what));
}

Expression compile(const ExprText& expr, Scope& scope, const std::string& what) {
  try {
    return Expression(expr.text, scope);
  } catch (const ExpressionError& e) {
    fail(expr.where, "cannot use " + what + " '" + expr.text + "': " + e.message);
  }
}

bool is_integral(double v) {
  return std::isfinite(v) && std::abs(v - std::round(v)) <= 1e-9 * std::max(1.0, std::abs(v));
}

std::string number_text(double v) {
  if (is_integral(v) && std::abs(v) < 9.0e15) return std::to_string(std::llround(v));
  return nlohmann::json(v).dump();
}

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// "transpose<TILE, PAD>" with the config's parameter values: "transpose<32, 1>".
std::string substitute_parameters(const std::string& name, const SearchSpace& space,
                                  const std::vector<Value>& values) {
  const size_t angle = name.find('<');
  std::string out = name.substr(0, angle);
  if (angle == std::string::npos) return out;
  for (size_t i = angle; i < name.size();) {
    if (!is_identifier_char(name[i])) {
      out += name[i++];
      continue;
    }
    size_t end = i;
    while (end < name.size() && is_identifier_char(name[end])) ++end;
    const std::string word = name.substr(i, end - i);
    const int d = space.dimension_index(word);
    const bool is_parameter = d >= 0 && !space.dimensions()[d].is_transform;
    out += is_parameter ? values[d].text() : word;
    i = end;
  }
  return out;
}

// The generic transforms' changes, in dimension order, after the variant's own options.
void apply_transforms(const std::vector<Dimension>& dimensions, const std::vector<Value>& values,
                      Variant* v) {
  TransformedVariant changes;
  for (const Launch& launch : v->launches) {
    changes.launches.push_back({launch.block, launch.grid, launch.dynamic_shared_bytes});
  }
  for (size_t d = 0; d < dimensions.size(); ++d) {
    if (!dimensions[d].is_transform || find_source_transform(dimensions[d].name)) continue;
    const GenericTransform* transform = find_generic_transform(dimensions[d].name);
    if (!transform) {
      throw Error(ErrorCode::kSpec, "unknown transform '" + dimensions[d].name + "'");
    }
    transform->apply(values[d], &changes);
  }
  v->prelude = std::move(changes.prelude);
  v->compile_options.insert(v->compile_options.end(), changes.compile_options.begin(),
                            changes.compile_options.end());
  for (size_t l = 0; l < v->launches.size(); ++l) {
    v->launches[l].block = changes.launches[l].block;
    v->launches[l].grid = changes.launches[l].grid;
    v->launches[l].dynamic_shared_bytes = changes.launches[l].dynamic_shared_bytes;
  }
}

}  // namespace

struct Problem::Impl {
  struct LaunchExpressions {
    std::vector<Expression> block, grid;
    std::optional<Expression> shared_bytes;
    std::optional<Expression> when;
    std::string function;  // the kernel's function, without template arguments
  };
  Scope scope;                 // problem values and the numeric dimensions' current values
  std::vector<double*> slots;  // per dimension; null for symbol-valued ones
  std::vector<LaunchExpressions> launches;             // parallel to Spec::launches
  std::vector<std::pair<size_t, Expression>> scalars;  // argument index, value
  std::vector<std::pair<size_t, Expression>> counts;   // argument index, element count
  std::optional<Expression> bytes, flops;
  std::vector<Expression> defines;  // parallel to Spec::defines
  std::unique_ptr<EngineKnobs> engine;
  std::mutex mutex;  // variant() and the metrics set the scope, so calls take turns

  void set(const SearchSpace& space, uint64_t index) {
    const std::vector<Value> values = space.values(index);
    for (size_t d = 0; d < values.size(); ++d) {
      if (slots[d]) *slots[d] = values[d].as_number();
    }
  }

  // The blocks of the config's launches whose condition holds, as the spec writes them. A
  // dimension that is not a positive integer is 0: variant() reports it with its location.
  std::vector<std::array<uint32_t, 3>> blocks_at(const SearchSpace& space,
                                                 const std::vector<size_t>& digits) {
    std::vector<std::array<uint32_t, 3>> blocks;
    for (const auto& launch : launch_blocks_at(space, digits)) blocks.push_back(launch.second);
    return blocks;
  }

  // The same, with the index of each launch in Spec::launches.
  std::vector<std::pair<size_t, std::array<uint32_t, 3>>> launch_blocks_at(
      const SearchSpace& space, const std::vector<size_t>& digits) {
    std::lock_guard<std::mutex> lock(mutex);
    const auto& dimensions = space.dimensions();
    for (size_t d = 0; d < dimensions.size(); ++d) {
      if (slots[d]) *slots[d] = dimensions[d].values[digits[d]].as_number();
    }
    std::vector<std::pair<size_t, std::array<uint32_t, 3>>> blocks;
    for (size_t l = 0; l < launches.size(); ++l) {
      const LaunchExpressions& launch = launches[l];
      if (launch.when && launch.when->evaluate() == 0) continue;
      std::array<uint32_t, 3> block{1, 1, 1};
      for (size_t i = 0; i < launch.block.size(); ++i) {
        const double value = launch.block[i].evaluate();
        const bool fits = is_integral(value) && value >= 1 && value <= kMaxLaunchValue;
        block[i] = fits ? static_cast<uint32_t>(std::llround(value)) : 0;
      }
      blocks.emplace_back(l, block);
    }
    return blocks;
  }

  // Whether stage_shared's tiles fit the static shared memory of a block: each tile is the
  // naive block's (the spec's launch as written) and the strip's, padded, once per sub-block.
  bool staged_tiles_fit(const SearchSpace& space, const std::vector<size_t>& digits) {
    const std::vector<engine::StagedTile>& tiles = engine->analysis().staged_tiles;
    if (tiles.empty()) return true;
    std::vector<Value> values;
    for (size_t d = 0; d < digits.size(); ++d) {
      values.push_back(space.dimensions()[d].values[digits[d]]);
    }
    engine::SourceKnobs knobs = engine->source_knobs(values, {});
    if (knobs.stage_shared == 0) return true;
    for (const auto& [l, block] : launch_blocks_at(space, digits)) {
      const auto [known, fresh] = knobs.naive_blocks.emplace(launches[l].function, block);
      if (!fresh && known->second != block) known->second = {0, 0, 0};
    }
    return engine::staged_shared_bytes(tiles, knobs) <= engine::kStaticSharedBytes;
  }

  // Whether every launch of the config has at most `limit` threads in a block once the
  // engine's thread and block merges reshaped it. A launch whose sizes are not positive
  // integers, or that a thread merge does not divide, passes: others say why it fails.
  bool block_threads_at_most(const SearchSpace& space, const std::vector<size_t>& digits,
                             uint32_t limit) {
    const MergeFactors factors = engine->factors_at(space.dimensions(), digits);
    for (const std::array<uint32_t, 3>& block : blocks_at(space, digits)) {
      if (block[0] == 0 || block[1] == 0 || block[2] == 0) continue;
      MergedLaunch merged;
      if (!merge_launch(factors, block, {1, 1, 1}, &merged).empty()) continue;
      const double threads = 1.0 * merged.block[0] * merged.block[1] * merged.block[2];
      if (threads > limit) return false;
    }
    return true;
  }

  // Whether each thread merge factor divides its extent of every launch's block.
  bool thread_merge_divides(const SearchSpace& space, const std::vector<size_t>& digits) {
    const MergeFactors factors = engine->factors_at(space.dimensions(), digits);
    if (factors.thread_x <= 1 && factors.thread_y <= 1) return true;
    for (const std::array<uint32_t, 3>& block : blocks_at(space, digits)) {
      if (block[0] == 0 || block[1] == 0) continue;
      if (factors.thread_x > 1 && block[0] % factors.thread_x != 0) return false;
      if (factors.thread_y > 1 && block[1] % factors.thread_y != 0) return false;
    }
    return true;
  }
};

Problem::Problem(Spec spec) : Problem(std::move(spec), {}) {}

Problem::Problem(Spec spec, const ProblemValues& at, uint32_t max_threads_per_block)
    : spec_(std::move(spec)), impl_(std::make_unique<Impl>()) {
  Scope& scope = impl_->scope;
  for (const auto& [name, expr] : spec_.problem) {
    const double* given = nullptr;
    for (const auto& [at_name, at_value] : at) {
      if (at_name == name) given = &at_value;
    }
    const double value =
        given ? *given : compile(expr, scope, "problem value '" + name + "'").evaluate();
    if (!std::isfinite(value)) {
      fail(expr.where, "problem value '" + name + "' = " + expr.text + " is " +
                           std::to_string(value) + "; expected a finite number");
    }
    scope.set(name, value);
    problem_values_.push_back({name, value});
  }
  const Scope problem_scope = [&] {
    Scope copy;
    for (const auto& [name, value] : problem_values_) copy.set(name, value);
    return copy;
  }();

  std::vector<Dimension> dimensions;
  for (const auto* list : {&spec_.parameters, &spec_.transforms}) {
    for (const auto& p : *list) dimensions.push_back({p.name, p.values, p.is_transform});
  }
  for (const auto& dimension : dimensions) {
    bool numeric = is_identifier(dimension.name);  // not "unroll(k_loop)"
    for (const auto& value : dimension.values) numeric = numeric && value.is_number();
    impl_->slots.push_back(numeric ? scope.slot(dimension.name) : nullptr);
  }
  impl_->engine = std::make_unique<EngineKnobs>(spec_, dimensions);

  std::vector<std::string> constraints;
  for (const ExprText& constraint : spec_.constraints) constraints.push_back(constraint.text);
  try {
    space_ = std::make_unique<SearchSpace>(std::move(dimensions), constraints, problem_scope);
  } catch (const ConstraintError& e) {
    const ExprText& constraint = spec_.constraints[e.constraint];
    fail(constraint.where, "cannot use constraint " + std::to_string(e.constraint + 1) + " '" +
                               constraint.text + "': " + e.message);
  }

  if (spec_.launches.empty()) {
    throw Error(ErrorCode::kSpec, spec_.path + ": the spec has no launch");
  }
  for (const LaunchSpec& launch : spec_.launches) {
    if (launch.block.empty() || launch.block.size() > 3 || launch.grid.empty() ||
        launch.grid.size() > 3) {
      fail(launch.where, "block and grid need 1 to 3 dimensions each");
    }
    Impl::LaunchExpressions& out = impl_->launches.emplace_back();
    out.function = kernel_function_name(launch.kernel_name.text);
    for (size_t i = 0; i < launch.block.size(); ++i) {
      out.block.push_back(compile(launch.block[i], scope, "block[" + std::to_string(i) + "]"));
    }
    for (size_t i = 0; i < launch.grid.size(); ++i) {
      out.grid.push_back(compile(launch.grid[i], scope, "grid[" + std::to_string(i) + "]"));
    }
    if (launch.dynamic_shared_bytes) {
      out.shared_bytes = compile(*launch.dynamic_shared_bytes, scope, "shared_bytes");
    }
    if (launch.when) out.when = compile(*launch.when, scope, "when");
  }
  for (const auto& [name, expr] : spec_.defines) {
    impl_->defines.push_back(compile(expr, scope, "define '" + name + "'"));
  }
  std::vector<size_t> digits(space_->dimensions().size(), 0);
  for (const auto& [name, value] : spec_.baseline) {
    const int d = space_->dimension_index(name);
    if (d < 0)
      fail(spec_.baseline_where, "baseline names '" + name + "', which is not a parameter");
    const auto& values = space_->dimensions()[d].values;
    size_t k = 0;
    for (; k < values.size(); ++k) {
      const bool same = values[k].is_number() && value.is_number()
                            ? values[k].as_number() == value.as_number()
                            : values[k] == value;
      if (same) break;
    }
    if (k == values.size()) {
      fail(spec_.baseline_where,
           "baseline " + name + " = " + value.text() + " is not among its values");
    }
    digits[d] = k;
  }
  // Device limits and the engine's (after the launches' merging), checked after constraints.
  if (!impl_->engine->empty()) {
    space_->add_limit(
        {"have a thread merge that does not divide the block's extent along its "
         "dimension",
         [impl = impl_.get(), space = space_.get()](const std::vector<size_t>& d) {
           return impl->thread_merge_divides(*space, d);
         }});
  }
  space_->add_limit({"exceed " + std::to_string(max_threads_per_block) + " threads per block",
                     [impl = impl_.get(), space = space_.get(),
                      max_threads_per_block](const std::vector<size_t>& digits) {
                       return impl->block_threads_at_most(*space, digits, max_threads_per_block);
                     }});
  if (!impl_->engine->empty()) {
    const uint64_t baseline = space_->encode(digits);
    impl_->engine->add_limits([this, baseline] { return kernel_unit(baseline); }, space_.get(),
                              digits);
    add_fusion_limits(*impl_->engine, space_.get(),
                      [impl = impl_.get(), space = space_.get()](const std::vector<size_t>& d) {
                        return impl->blocks_at(*space, d);
                      });
    if (!impl_->engine->analysis().staged_tiles.empty()) {
      space_->add_limit({"exceed the " + std::to_string(engine::kStaticSharedBytes) +
                             " bytes of static shared memory a block may declare with "
                             "stage_shared's tiles (at the baseline's macros)",
                         [impl = impl_.get(), space = space_.get()](const std::vector<size_t>& d) {
                           return impl->staged_tiles_fit(*space, d);
                         }});
    }
  }

  uint64_t first_valid = space_->size();
  for (uint64_t i = 0; i < space_->size(); ++i) {
    if (space_->valid(i)) {
      first_valid = i;
      break;
    }
  }
  if (first_valid == space_->size()) {
    const std::vector<PrunedConfigs> pruned = this->pruned();
    if (!pruned.empty()) {
      fail(spec_.constraints_where,
           "no config both satisfies the constraints and fits the device: " +
               std::to_string(pruned.front().configs) + " that satisfy them " +
               pruned.front().reason +
               "; expected block sizes within the limit (add smaller values)");
    }
    fail(spec_.constraints_where, "no config satisfies the constraints (" +
                                      std::to_string(space_->size()) +
                                      " configs, each fails at least one); expected constraints "
                                      "that leave at least one config");
  }

  baseline_index_ = space_->encode(digits);
  if (const int failed = space_->failed_constraint(baseline_index_); failed >= 0) {
    const size_t constraints = space_->constraint_count();
    const std::string why =
        static_cast<size_t>(failed) >= constraints
            ? "has launches that " + space_->limits()[failed - constraints].violation
            : "fails constraint " + std::to_string(failed + 1) + " (" +
                  spec_.constraints[failed].text + ")";
    if (spec_.baseline_where.str().empty()) {
      baseline_index_ = first_valid;  // no baseline written: the first config that is valid
    } else if (spec_.baseline_nearest_valid) {
      const uint64_t nearest = space_->nearest_valid(baseline_index_);
      const uint64_t chosen = nearest < space_->size() ? nearest : first_valid;
      baseline_note_ = spec_.baseline_where.message(
          "the baseline the Defaults give (" + space_->describe(baseline_index_) + ") " + why +
          "; the baseline is the valid config nearest to it instead: " + space_->describe(chosen));
      baseline_index_ = chosen;
    } else if (static_cast<size_t>(failed) >= constraints) {
      fail(spec_.baseline_where,
           "the baseline " + space_->describe(baseline_index_) + " has launches that " +
               space_->limits()[failed - constraints].violation +
               "; expected a baseline the device can launch (choose smaller block values)");
    } else {
      fail(spec_.baseline_where, "the baseline " + space_->describe(baseline_index_) +
                                     " fails constraint " + std::to_string(failed + 1) + " (" +
                                     spec_.constraints[failed].text +
                                     "); expected a baseline inside the constrained space");
    }
  }

  for (size_t a = 0; a < spec_.arguments.size(); ++a) {
    const ArgumentSpec& arg = spec_.arguments[a];
    if (arg.is_buffer) {
      impl_->counts.emplace_back(a, compile(arg.count, scope, "count of '" + arg.name + "'"));
    } else {
      impl_->scalars.emplace_back(a, compile(arg.value, scope, "value of '" + arg.name + "'"));
    }
  }
  check_given_sizes();
  if (spec_.reference_kernel) reference_launch_ = resolve_reference();
  if (spec_.bytes) impl_->bytes = compile(*spec_.bytes, scope, "metrics bytes");
  if (spec_.flops) impl_->flops = compile(*spec_.flops, scope, "metrics flops");
}

Problem::~Problem() = default;

ReferenceLaunch Problem::resolve_reference() const {
  const ReferenceKernelSpec& spec = *spec_.reference_kernel;
  Scope scope;  // problem values only: the reference runs once, whatever the config
  for (const auto& [name, value] : problem_values_) scope.set(name, value);
  ReferenceLaunch out;
  out.name = spec.name();
  out.kernel_name_expression = spec.launch.kernel_name.text;
  const auto value_of = [&](const ExprText& expr, const std::string& what, bool zero_ok) {
    const double value = compile(expr, scope, out.name + " " + what).evaluate();
    if (!is_integral(value) || value < (zero_ok ? 0 : 1) || value > kMaxLaunchValue) {
      fail(expr.where, out.name + " " + what + " = " + expr.text + " is " + number_text(value) +
                           "; expected " + (zero_ok ? "a non-negative" : "a positive") +
                           " integer no larger than 2147483647");
    }
    return static_cast<uint32_t>(std::llround(value));
  };
  for (size_t i = 0; i < spec.launch.block.size() && i < 3; ++i) {
    out.launch.block[i] = value_of(spec.launch.block[i], "block[" + std::to_string(i) + "]", false);
  }
  for (size_t i = 0; i < spec.launch.grid.size() && i < 3; ++i) {
    out.launch.grid[i] = value_of(spec.launch.grid[i], "grid[" + std::to_string(i) + "]", false);
  }
  if (spec.launch.dynamic_shared_bytes) {
    out.launch.dynamic_shared_bytes =
        value_of(*spec.launch.dynamic_shared_bytes, "shared_bytes", true);
  }
  for (size_t a : spec.launch.arguments) {
    if (!spec_.arguments[a].constant) out.launch.arguments.push_back(a);
  }
  for (const auto& [name, expr] : spec.defines) {
    const double value = compile(expr, scope, out.name + " define '" + name + "'").evaluate();
    if (!std::isfinite(value)) {
      fail(expr.where, out.name + " define '" + name + "' = " + expr.text + " is " +
                           number_text(value) + "; expected a finite number");
    }
    out.compile_options.push_back("-D" + name + "=" + number_text(value));
  }
  out.compile_options.insert(out.compile_options.end(), spec.compile_options.begin(),
                             spec.compile_options.end());
  const std::string folder = std::filesystem::path(spec.path).parent_path().string();
  out.compile_options.push_back("--include-path=" + (folder.empty() ? "." : folder));
  return out;
}

std::string Problem::problem_json() const { return problem_to_json(problem_values_); }

std::vector<PrunedConfigs> Problem::pruned() const {
  const std::vector<ConfigCount> counts = space_->count_pruned_bounded();
  std::vector<PrunedConfigs> out;
  for (size_t l = 0; l < counts.size(); ++l) {
    if (counts[l].configs > 0) {
      out.push_back({space_->limits()[l].violation, counts[l].configs, counts[l].estimated});
    }
  }
  return out;
}

std::string Problem::why_pruned(uint64_t index) const {
  const int failed = space_->failed_constraint(index);
  if (failed < 0) return "";
  const size_t constraints = space_->constraint_count();
  if (static_cast<size_t>(failed) < constraints) {
    return "fails constraint " + std::to_string(failed + 1) + " (" +
           spec_.constraints[failed].text + ")";
  }
  return "would " + space_->limits()[failed - constraints].violation;
}

std::vector<BufferShape> Problem::buffers() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  std::vector<BufferShape> out;
  for (const auto& [a, expr] : impl_->counts) {
    const ArgumentSpec& arg = spec_.arguments[a];
    const double count = expr.evaluate();
    if (!is_integral(count) || std::llround(count) <= 0 || count > 9.0e15) {
      fail(arg.count.where, "count of '" + arg.name + "' = " + arg.count.text + " is " +
                                number_text(count) + "; expected a positive integer");
    }
    out.push_back({arg.name, arg.type, static_cast<uint64_t>(std::llround(count))});
  }
  return out;
}

std::vector<std::string> Problem::compile_options(const std::vector<Value>& values,
                                                  const std::string& config) const {
  const auto& dimensions = space_->dimensions();
  std::vector<std::string> options;
  if (spec_.parameters_as_macros) {
    for (size_t d = 0; d < dimensions.size(); ++d) {
      if (!dimensions[d].is_transform) {
        options.push_back("-D" + dimensions[d].name + "=" + values[d].text());
      }
    }
  }
  for (size_t i = 0; i < spec_.defines.size(); ++i) {
    const auto& [name, expr] = spec_.defines[i];
    const double value = impl_->defines[i].evaluate();
    if (!std::isfinite(value)) {
      fail(expr.where, "define '" + name + "' = " + expr.text + " is " + std::to_string(value) +
                           " for " + (config.empty() ? "the only config" : "config " + config) +
                           "; expected a finite number");
    }
    options.push_back("-D" + name + "=" + number_text(value));
  }
  options.insert(options.end(), spec_.compile_options.begin(), spec_.compile_options.end());
  // NVRTC sees the kernel as a string, so "#include \"gputune.cuh\"" needs the kernel's folder.
  const std::string kernel_dir = std::filesystem::path(spec_.kernel_path).parent_path().string();
  options.push_back("--include-path=" + (kernel_dir.empty() ? "." : kernel_dir));
  return options;
}

const std::string& Problem::engine_note() const { return impl_->engine->note(); }

const EngineKnobs& Problem::engine_knobs() const { return *impl_->engine; }

engine::KernelUnit Problem::kernel_unit(uint64_t index) const {
  const std::vector<Value> values = space_->values(index);
  std::vector<engine::LaunchBinding> unfused;
  if (impl_->engine->has("fuse")) make_variant(index, false, &unfused);
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->set(*space_, index);
  std::vector<std::string> kernels;
  for (size_t l = 0; l < spec_.launches.size(); ++l) {
    const Impl::LaunchExpressions& expressions = impl_->launches[l];
    if (expressions.when && expressions.when->evaluate() == 0) continue;
    kernels.push_back(spec_.launches[l].kernel_name.text);
  }
  return impl_->engine->unit(compile_options(values, space_->describe(index)), kernels, unfused);
}

engine::Analysis Problem::engine_analysis(const std::vector<std::string>& knobs) const {
  return engine::source_engine().analyse(kernel_unit(baseline_index_), knobs);
}

bool Problem::merge(const std::vector<Value>& values, Variant* v) const {
  const MergeFactors factors = impl_->engine->factors(values);
  if (factors.neutral()) return true;
  for (Launch& launch : v->launches) {
    MergedLaunch merged;
    const std::string why = merge_launch(factors, launch.block, launch.grid, &merged);
    if (!why.empty()) {
      v->refusal = spec_.kernel_path + ": " + why;
      return false;
    }
    launch.block = merged.block;
    launch.grid = merged.grid;
    launch.trailing_arguments = merged.trailing_arguments;
  }
  return true;
}

// The engine's rewrite of the kernel. A refusal becomes the variant's, never an exception: one
// variant's rare combination must not stop a search.
void Problem::rewrite(const std::vector<Value>& values, std::vector<engine::LaunchBinding> unfused,
                      Variant* v) const {
  const EngineKnobs& engine = *impl_->engine;
  std::map<std::string, uint32_t> block_threads;
  for (const Launch& launch : v->launches) {
    uint32_t& threads =
        block_threads[kernel_function_name(v->kernel_name_expressions[launch.kernel])];
    threads = std::max(threads, launch.block[0] * launch.block[1] * launch.block[2]);
  }
  if (std::string why = engine.refusal(values); !why.empty()) {
    v->refusal = std::move(why);
    return;
  }
  std::vector<std::string> kernels;
  for (const Launch& launch : v->launches) {
    kernels.push_back(v->kernel_name_expressions[launch.kernel]);
  }
  // The naive kernel's block of each kernel: the merged launch with the merges undone.
  const MergeFactors factors = engine.factors(values);
  std::map<std::string, std::array<uint32_t, 3>> naive_blocks;
  for (const Launch& launch : v->launches) {
    const std::array<uint32_t, 3> naive{
        launch.block[0] * factors.thread_x / std::max(factors.block_x, 1u),
        launch.block[1] * factors.thread_y / std::max(factors.block_y, 1u), launch.block[2]};
    const std::string name = kernel_function_name(v->kernel_name_expressions[launch.kernel]);
    const auto [known, fresh] = naive_blocks.emplace(name, naive);
    if (!fresh && known->second != naive) known->second = {0, 0, 0};
  }
  engine::SourceKnobs knobs = engine.source_knobs(values, block_threads);
  knobs.naive_blocks = std::move(naive_blocks);
  const engine::Rewrite rewritten =
      engine::source_engine().rewrite(engine.unit(v->compile_options, kernels, unfused), knobs);
  if (rewritten.ok) {
    v->source = rewritten.source;
  } else {
    v->refusal = rewritten.message;
  }
}

Variant Problem::variant(uint64_t index) const { return make_variant(index, true); }

Variant Problem::geometry(uint64_t index) const { return make_variant(index, false); }

Variant Problem::make_variant(uint64_t index, bool with_source,
                              std::vector<engine::LaunchBinding>* unfused) const {
  const std::vector<Value> values = space_->values(index);
  const auto& dimensions = space_->dimensions();
  Variant v;
  v.index = index;
  v.config = space_->json(index);
  const std::string config = space_->describe(index);

  std::unique_lock<std::mutex> lock(impl_->mutex);
  impl_->set(*space_, index);
  v.compile_options = compile_options(values, config);

  const auto launch_value = [&](const Expression& expr, const ExprText& text,
                                const std::string& what, bool zero_ok) {
    const double value = expr.evaluate();
    if (!is_integral(value) || value < (zero_ok ? 0 : 1) || value > kMaxLaunchValue) {
      fail(text.where, what + " = " + text.text + " is " + number_text(value) + " for " +
                           (config.empty() ? "the only config" : "config " + config) +
                           "; expected " + (zero_ok ? "a non-negative" : "a positive") +
                           " integer no larger than 2147483647");
    }
    return static_cast<uint32_t>(std::llround(value));
  };
  for (size_t l = 0; l < spec_.launches.size(); ++l) {
    const LaunchSpec& spec = spec_.launches[l];
    const Impl::LaunchExpressions& expressions = impl_->launches[l];
    if (expressions.when && expressions.when->evaluate() == 0) continue;
    Launch launch;
    const std::string name = substitute_parameters(spec.kernel_name.text, *space_, values);
    auto known =
        std::find(v.kernel_name_expressions.begin(), v.kernel_name_expressions.end(), name);
    launch.kernel = static_cast<size_t>(known - v.kernel_name_expressions.begin());
    if (known == v.kernel_name_expressions.end()) v.kernel_name_expressions.push_back(name);
    // A constant argument fills a __constant__ symbol of the module; no launch passes it.
    for (size_t a : spec.arguments) {
      if (!spec_.arguments[a].constant) launch.arguments.push_back(a);
    }
    for (size_t i = 0; i < expressions.block.size(); ++i) {
      launch.block[i] = launch_value(expressions.block[i], spec.block[i],
                                     "block[" + std::to_string(i) + "]", false);
    }
    for (size_t i = 0; i < expressions.grid.size(); ++i) {
      launch.grid[i] =
          launch_value(expressions.grid[i], spec.grid[i], "grid[" + std::to_string(i) + "]", false);
    }
    if (expressions.shared_bytes) {
      launch.dynamic_shared_bytes =
          launch_value(*expressions.shared_bytes, *spec.dynamic_shared_bytes, "shared_bytes", true);
    }
    v.launches.push_back(std::move(launch));
  }
  if (v.launches.empty()) {
    fail(spec_.launches_where, "no launch's condition (when) holds for " +
                                   (config.empty() ? "the only config" : "config " + config) +
                                   "; expected every config to launch at least one kernel "
                                   "(add a constraint to leave such configs out)");
  }
  for (const auto& [a, expr] : impl_->scalars) {
    const ArgumentSpec& arg = spec_.arguments[a];
    const double value = expr.evaluate();
    if (!std::isfinite(value) || (!is_floating(arg.type) && !is_integral(value))) {
      fail(arg.value.where, "value of '" + arg.name + "' = " + arg.value.text + " is " +
                                number_text(value) + " for config " + config + "; expected " +
                                (is_floating(arg.type) ? "a finite number" : "an integer") +
                                " for its type " + type_name(arg.type));
    }
    v.scalar_arguments.push_back(is_floating(arg.type) ? value : std::round(value));
  }
  lock.unlock();  // the engine parses outside the lock: variants of other threads go on
  // The engine's launches are the kernel's as rewritten; generic transforms apply to those.
  std::vector<engine::LaunchBinding> bindings;
  if (impl_->engine->has("fuse")) bindings = launch_bindings(spec_, v);
  if (unfused) *unfused = bindings;
  fuse_launches(fuse_value(*impl_->engine, values), &v);
  if (!impl_->engine->neutral(values) && merge(values, &v) && with_source) {
    rewrite(values, std::move(bindings), &v);
  }
  apply_transforms(dimensions, values, &v);
  return v;
}

double Problem::bytes(uint64_t index) const {
  if (!impl_->bytes) return 0;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->set(*space_, index);
  return impl_->bytes->evaluate();
}

double Problem::flops(uint64_t index) const {
  if (!impl_->flops) return 0;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->set(*space_, index);
  return impl_->flops->evaluate();
}

}  // namespace gputune
