#include "transforms/source_transforms.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>

#include "core/text.h"
#include "transforms/generic_transform.h"

namespace gputune {
namespace {

bool whole_at_least(const Value& value, int64_t least) {
  return value.is_integer() && value.as_number() >= static_cast<double>(least);
}

std::string reject_count(const std::string& name, const Value& value, int64_t least,
                         const std::string& expected) {
  if (whole_at_least(value, least) && value.as_number() <= 1024) return "";
  return name + " value " + value.text() + " is not an integer in " + std::to_string(least) +
         "..1024; expected " + expected;
}

std::string reject_unroll(const std::string& name, const Value& value) {
  return reject_count(name, value, 0, "0 (leave the loop as written) or an unroll factor");
}
std::string reject_merge(const std::string& name, const Value& value) {
  return reject_count(name, value, 1,
                      "1 (no merge) or how many threads or blocks one does the work of (2, 4, "
                      "8, ...)");
}
std::string reject_pad(const std::string& name, const Value& value) {
  return reject_count(name, value, 0, "0 (no padding) or extra elements per row");
}
std::string reject_launch_bounds(const std::string& name, const Value& value) {
  return reject_count(name, value, 0, "0 (no __launch_bounds__) or the blocks per SM to ask for");
}
std::string reject_fuse(const std::string& name, const Value& value) {
  return reject_count(name, value, 0,
                      "0 (no fusion) or how many leading launches of the sequence become one "
                      "kernel (2, 3, ...)");
}
std::string reject_stage(const std::string& name, const Value& value) {
  if (value.is_integer() && value.as_number() >= 0 && value.as_number() <= 1024) return "";
  return name + " value " + value.text() +
         " is not an integer from 0 to 1024; expected 0 (as written), 1 (stage uncoalesced "
         "accesses through shared memory) or a loop's strip width (16, 32, ...)";
}
std::string reject_switch(const std::string& name, const Value& value) {
  if (value.is_integer() && (value.as_number() == 0 || value.as_number() == 1)) return "";
  return name + " value " + value.text() + " is not 0 or 1; expected 0 (as written) or 1";
}
std::string reject_vector_width(const std::string& name, const Value& value) {
  if (value.is_integer() &&
      (value.as_number() == 1 || value.as_number() == 2 || value.as_number() == 4)) {
    return "";
  }
  return name + " value " + value.text() +
         " is not 1, 2 or 4; expected 1 (as written) or the words one vector access reads";
}
std::string reject_layout(const std::string& name, const Value& value) {
  if (!value.is_number() &&
      (value.as_symbol() == "strided" || value.as_symbol() == "consecutive")) {
    return "";
  }
  return name + " value " + value.text() + " is not a layout; expected strided or consecutive";
}

std::string reject_split(const std::string& name, const Value& value) {
  if (value.is_integer() && value.as_number() >= 1 && value.as_number() <= 32 &&
      32 % static_cast<int64_t>(value.as_number()) == 0) {
    return "";
  }
  return name + " value " + value.text() +
         " does not divide a warp; expected 1 (no split), 2, 4, 8, 16 or 32 threads per "
         "thread's work";
}

std::vector<Value> numbers(std::initializer_list<int64_t> values) {
  std::vector<Value> out;
  for (int64_t v : values) out.emplace_back(v);
  return out;
}

std::vector<SourceTransform> built_in() {
  using D = KnobDirection;
  using T = SourceTransform::Target;
  return {
      {"unroll",
       T::kLoop,
       Value(int64_t{0}),
       reject_unroll,
       {{"instruction_parallelism", D::kRaise}},
       "#pragma unroll N on the innermost loops (or on one loop)",
       numbers({0, 2, 4, 8})},
      {"thread_merge_x",
       T::kNone,
       Value(int64_t{1}),
       reject_merge,
       {{"instruction_parallelism", D::kRaise},
        {"register_tiling", D::kRaise},
        // Merged threads share their address arithmetic: fewer instructions per output.
        {"cheaper_instructions", D::kRaise},
        // Each merged output holds registers: smaller merges for occupancy.
        {"register_cap", D::kLower}},
       "one thread does the work of N threads along x; the block shrinks N times along x",
       numbers({1, 2, 4, 8})},
      {"thread_merge_y",
       T::kNone,
       Value(int64_t{1}),
       reject_merge,
       {{"instruction_parallelism", D::kRaise},
        {"register_tiling", D::kRaise},
        // Merged threads share their address arithmetic: fewer instructions per output.
        {"cheaper_instructions", D::kRaise},
        // Each merged output holds registers: smaller merges for occupancy.
        {"register_cap", D::kLower}},
       "one thread does the work of N threads along y; the block shrinks N times along y",
       numbers({1, 2, 4, 8})},
      {"merge_layout",
       T::kNone,
       Value(std::string("strided")),
       reject_layout,
       // Consecutive outputs put a merged thread's shared accesses N words apart: conflicts.
       {{"padding", D::kEither, "strided"}},
       "where a merged thread's N outputs lie: a block apart (strided) or side by side "
       "(consecutive)",
       {Value(std::string("strided")), Value(std::string("consecutive"))}},
      {"block_merge_x",
       T::kNone,
       Value(int64_t{1}),
       reject_merge,
       {{"shared_staging", D::kRaise}, {"thread_parallelism", D::kEither}},
       "one block does the work of N neighbouring blocks along x; the grid shrinks N times",
       numbers({1, 2, 4})},
      {"block_merge_y",
       T::kNone,
       Value(int64_t{1}),
       reject_merge,
       {{"shared_staging", D::kRaise}, {"thread_parallelism", D::kEither}},
       "one block does the work of N neighbouring blocks along y; the grid shrinks N times",
       numbers({1, 2, 4})},
      {"pad_shared",
       T::kArray,
       Value(int64_t{0}),
       reject_pad,
       {{"padding", D::kEither}},
       "N extra elements on the last dimension of the 2-D shared arrays (or of one)",
       numbers({0, 1, 2})},
      {"launch_bounds",
       T::kNone,
       Value(int64_t{0}),
       reject_launch_bounds,
       {{"register_cap", D::kRaise}},
       "__launch_bounds__(threads per block, N) on the kernels",
       numbers({0, 1, 2, 4})},
      {"stage_shared",
       T::kNone,
       Value(int64_t{0}),
       reject_stage,
       {{"shared_staging", D::kRaise}},
       "each uncoalesced global access goes through a shared tile loaded (stored) cooperatively "
       "and coalesced; a loop's reads a tile per strip of N iterations",
       numbers({0, 1, 16, 32})},
      {"fuse",
       T::kNone,
       Value(int64_t{0}),
       reject_fuse,
       {{"shared_staging", D::kRaise}},
       "the first N launches of the sequence become one kernel: each block recomputes the halo "
       "of the intermediates, which live in shared memory",
       numbers({0, 2, 3})},
      {"partition_offset",
       T::kNone,
       Value(int64_t{0}),
       reject_switch,
       {{"block_order", D::kEither}},
       "in a 1-D grid, each block starts the loops whose accesses camp on one memory partition "
       "at an offset of its own",
       numbers({0, 1})},
      {"prefetch",
       T::kNone,
       Value(int64_t{0}),
       reject_switch,
       {{"instruction_parallelism", D::kRaise}},
       "in a loop stage_shared strip-mines, the next strip's tile words are loaded into "
       "registers during this strip's iterations",
       numbers({0, 1})},
      {"vector_width",
       T::kNone,
       Value(int64_t{1}),
       reject_vector_width,
       {{"vector_width", D::kRaise}},
       "a thread's reads of 2 or 4 neighbouring words of a shared tile's row (thread merge's "
       "consecutive copies) as one float2 / float4 read",
       numbers({1, 2, 4})},
      {"thread_split_x",
       T::kNone,
       Value(int64_t{1}),
       reject_split,
       {{"thread_parallelism", D::kRaise}},
       "N threads along x do the work of one: each counted loop that accumulates into locals is "
       "split across them and the sums combined by warp shuffles; the block grows N times",
       numbers({1, 4, 8, 32})},
  };
}

}  // namespace

TransformName parse_transform_name(const std::string& name) {
  const size_t open = name.find('(');
  if (open == std::string::npos) return {name, "", false};
  const size_t close = name.rfind(')');
  const std::string target = close == std::string::npos || close < open
                                 ? name.substr(open + 1)
                                 : name.substr(open + 1, close - open - 1);
  return {name.substr(0, open), target, true};
}

const std::vector<SourceTransform>& source_transforms() {
  static const std::vector<SourceTransform> transforms = built_in();
  return transforms;
}

const SourceTransform* find_source_transform(const std::string& name) {
  const std::string base = parse_transform_name(name).base;
  for (const SourceTransform& transform : source_transforms()) {
    if (transform.name == base) return &transform;
  }
  return nullptr;
}

std::vector<std::string> source_transform_names() {
  std::vector<std::string> names;
  for (const SourceTransform& transform : source_transforms()) names.push_back(transform.name);
  return names;
}

std::vector<std::string> transform_names() {
  std::vector<std::string> names = generic_transform_names();
  for (const std::string& name : source_transform_names()) names.push_back(name);
  return names;
}

std::string reject_transform_name(const std::string& name) {
  const TransformName parsed = parse_transform_name(name);
  const std::vector<std::string> known = transform_names();
  const SourceTransform* source = find_source_transform(name);
  if (!source && !find_generic_transform(parsed.base)) {
    return "unknown transform '" + name + "'" + suggestion(parsed.base, known) +
           "; expected one of: " + join(known);
  }
  if (!parsed.has_target) return "";
  if (!source || source->target == SourceTransform::Target::kNone) {
    return "transform '" + parsed.base + "' takes no target, got '" + name + "'; expected '" +
           parsed.base + "' alone";
  }
  const bool line = !parsed.target.empty() &&
                    std::all_of(parsed.target.begin(), parsed.target.end(),
                                [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  const bool loop = source->target == SourceTransform::Target::kLoop;
  const bool closed = name.back() == ')' && name.find('(') == name.rfind('(');
  if (!closed || !(is_identifier(parsed.target) || (loop && line && parsed.target[0] != '0'))) {
    return "transform '" + name + "' does not name its target as expected; expected " +
           (loop ? parsed.base + "(<a label before the loop, or its line>), e.g. " + parsed.base +
                       "(k_loop) or " + parsed.base + "(42)"
                 : parsed.base + "(<a 2-D __shared__ array>), e.g. " + parsed.base + "(tile)");
  }
  return "";
}

bool is_neutral(const SourceTransform& transform, const Value& value) {
  if (transform.neutral.is_number() && value.is_number()) {
    return transform.neutral.as_number() == value.as_number();
  }
  return transform.neutral == value;
}

}  // namespace gputune
