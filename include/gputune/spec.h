#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gputune/value.h"

namespace gputune {

// Where something was written: 1-based line and column, as editors count them. Without a line,
// `file` alone names where a value came from (a Spec built in memory: "tune(): grid[1]").
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
  std::string str() const;  // "file:line:column", "file" without a line, "" when unknown
  // "str(): what", or what alone when unknown.
  std::string message(const std::string& what) const;
};

// An expression as written in the spec, with where it was written.
struct ExprText {
  std::string text;
  SourceLocation where;
};

enum class ScalarType {
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUint8,
  kUint16,
  kUint32,
  kUint64,
  kFloat32,
  kFloat64
};
size_t size_of(ScalarType type);
const char* type_name(ScalarType type);  // "float32", ...
bool parse_type(const std::string& name, ScalarType* type);
bool is_floating(ScalarType type);

// kData: the bytes in ArgumentSpec::data (given through the API, e.g. a numpy array, or a T1
// file's BinaryRaw file; a YAML spec cannot say it). kGenerator: each element is
// ArgumentSpec::generator, an expression of `i`, the element's index (a T1 Generator).
enum class Fill { kRandom, kConstant, kIota, kZeros, kData, kGenerator };

// Bytes shared between copies of a Spec (and with a forked worker process) without copying.
using SharedBytes = std::shared_ptr<const std::vector<unsigned char>>;

// The box of an output that its check compares. The output is a row-major array of `shape`
// (1 to 3 expressions of problem values whose product is its count; empty: one dimension of
// count elements); each dimension d keeps the elements begin[d] <= i < end[d].
struct CheckRegionSpec {
  std::vector<ExprText> shape, begin, end;
  SourceLocation where;
};

struct ArgumentSpec {
  std::string name;
  ScalarType type = ScalarType::kFloat32;
  SourceLocation where;
  bool is_buffer = true;  // a device buffer of `count` elements, or a scalar of `value`
  ExprText count;         // buffers: element count, an expression of problem values
  ExprText value;         // scalars: an expression of problem values and parameters
  bool output = false;    // outputs are poisoned before a checked run and compared
  // Scratch buffers hold what one launch passes to the next (a multi-launch spec's
  // intermediates): poisoned before a checked run like outputs, but neither filled nor compared.
  bool scratch = false;
  // A `__constant__` symbol of the module rather than a kernel parameter: filled like an input
  // and copied into the symbol after each module is loaded; no launch passes it.
  bool constant = false;
  std::string symbol;         // constants: the symbol's name; empty means the argument's name
  Fill fill = Fill::kRandom;  // inputs, and outputs that are `initialised`
  double fill_value = 0;      // kConstant
  double fill_low = 0, fill_high = 1;  // kRandom: uniform in [low, high)
  uint64_t seed = 0;                   // kRandom
  SharedBytes data;                    // kData: count * size_of(type) bytes, native byte order
  ExprText generator;                  // kGenerator: of `i` only, evaluated per element

  // How an output is checked (outputs only).
  // Filled as `fill` says before the checked run and again before timing, instead of being
  // poisoned: elements the kernel leaves alone keep a known value and compare equal.
  bool initialised = false;
  // Only these elements are compared (and must be written); absent: all of them.
  std::optional<CheckRegionSpec> check_region;
  // The expected contents (count * size_of(type) bytes). When set, variants (the baseline
  // included) are checked against it instead of against the baseline's output.
  SharedBytes reference;
  // The expected contents as a fill (a T1 file's ReferenceArguments: a file, a generator, a
  // constant), made at the buffer's size like an input; checked like `reference`.
  std::shared_ptr<const ArgumentSpec> reference_fill;

  const std::string& constant_symbol() const { return symbol.empty() ? name : symbol; }
};

// One kernel launch of a variant. A spec has one (`launch:`) or a sequence (`launches:`), run in
// order and timed together; a launch whose `when` is 0 for a config is left out of it.
struct LaunchSpec {
  ExprText kernel_name;               // a name or a name expression: "transpose<TILE, PAD>"
  std::vector<size_t> arguments;      // indices into Spec::arguments, in the kernel's order
  std::vector<ExprText> block, grid;  // 1 to 3 each
  std::optional<ExprText> dynamic_shared_bytes;
  std::optional<ExprText> when;  // of problem values and parameters; absent: always
  SourceLocation where;
};

// A kernel that computes the expected outputs (`check: {reference: {kernel: ...}}`). It runs
// once per workload, on the same inputs and before the baseline; every variant, the baseline
// included, is checked against what it wrote instead of against the baseline's outputs. Its
// launch's expressions are of problem values only; its scalar arguments take the baseline's
// values.
struct ReferenceKernelSpec {
  std::string path;    // the source file, resolved relative to the spec
  std::string source;  // its contents
  // kernel_name: the function (or a name expression "ref<float>"); arguments: indices into
  // Spec::arguments in the kernel's order (constant arguments are bound, not passed).
  LaunchSpec launch;
  std::vector<std::string> compile_options;               // extra NVRTC options
  std::vector<std::pair<std::string, ExprText>> defines;  // -DNAME=value, of problem values
  SourceLocation where;
  std::string name() const;  // "reference kernel 'ref' (ref.cu)", for messages
};

// A kernel parameter (macro or template argument) or a generic transformation.
struct ParameterSpec {
  std::string name;
  std::vector<Value> values;
  SourceLocation where;
  bool is_transform = false;  // under `transforms:` (transforms/generic_transforms.cpp)
};

// "100" is a number of evaluations, "90s", "10m", "2h" a time. False for anything else,
// zero or negative.
bool parse_budget(const std::string& text, int64_t* evaluations, double* seconds);

struct SearchSettings {
  std::string strategy = "brute_force";
  int64_t budget_evaluations = 0;  // 0: no limit
  double budget_seconds = 0;       // 0: no limit
  uint64_t seed = 0;
};

// A spec as plain data. Only the loader knows YAML.
struct Spec {
  std::string path;  // the spec file as given
  std::string text;  // the spec file's contents
  // What reading it noticed that is no error (a T1 Default outside its Values), one sentence
  // each; a search's outcome carries them on, and each front end shows them its own way.
  std::vector<std::string> warnings;
  std::string description;
  // Resolved relative to the spec file. A source given as text (Python's tune()) has a name
  // without a folder: its quoted #includes are found in the working directory, by NVRTC and
  // by the check alike.
  std::string kernel_path;
  std::string kernel_source;  // the kernel file's contents
  // Of the headers the kernel includes with quotes, found beside it (gputune.cuh, ...): they
  // are part of what a module is compiled from, though not of the kernel's identity.
  std::string headers_hash;
  // `kernel: name`, or for a multi-launch spec without one, its kernels' names joined by " + ".
  // What identifies the kernel among workloads; each launch names what it launches.
  ExprText kernel_name;
  bool parameters_as_macros = true;  // each parameter also becomes -DNAME=value
  // `kernel: {defines: {N: n}}`: each becomes -DNAME=value for every variant, the value an
  // expression of problem values and parameters (so --set reaches a kernel's #define sizes).
  std::vector<std::pair<std::string, ExprText>> defines;

  std::vector<std::pair<std::string, ExprText>> problem;  // in file order, --set applied
  std::vector<ArgumentSpec> arguments;  // a single launch's order; launches pick by name
  std::vector<LaunchSpec> launches;     // at least one
  SourceLocation launches_where;
  std::vector<ParameterSpec> parameters;  // in file order
  std::vector<ParameterSpec> transforms;
  std::vector<ExprText> constraints;
  SourceLocation constraints_where;
  std::vector<std::pair<std::string, Value>> baseline;  // every parameter and transform
  SourceLocation baseline_where;
  // The check (`check:`). Without it (`check: none`) variants are timed unchecked, and
  // reports say so.
  bool check_outputs = true;
  double rtol = 1e-5, atol = 1e-6;
  // How the command line (or Python's search()) changed the check: "--check none", "--atol
  // 0.01", ...; empty when the spec's own check holds. Reports show it.
  std::string check_override;
  // Computes the outputs that have no `reference` of their own; absent: the baseline does.
  std::optional<ReferenceKernelSpec> reference_kernel;
  // The baseline is a preference (a T1 file's Defaults): where it fails a constraint, the
  // valid config nearest to it is the baseline instead, with a warning. Otherwise that is an
  // error.
  bool baseline_nearest_valid = false;
  std::optional<ExprText> bytes, flops;      // metrics
  std::vector<std::string> compile_options;  // extra NVRTC options
  SearchSettings search;
  // `remedies:` which parameters apply which remedy of the bottleneck method
  // (thread_parallelism: [BLOCK], padding: [+PAD], ...; docs/bottleneck.md), in file order, as
  // written: a leading + or - is the direction (core/remedy.h parse_remedy_knob).
  std::vector<std::pair<std::string, std::vector<std::string>>> remedies;
  SourceLocation remedies_where;

  std::string spec_hash() const;    // hash of the spec text (problem values are keyed apart)
  std::string source_hash() const;  // hash of the kernel source
  // The spec hash without the keys that change no config or measurement (remedies:,
  // description:, search:): what a recording must match to replay (spec/measurement_hash.h).
  std::string measurement_hash() const;
};

// A change of a spec's check from outside it: `gputune search --check none|baseline --atol X
// --rtol Y`, Python's search(check=, atol=, rtol=).
struct CheckOverride {
  std::string check;  // "", "none" (time unchecked) or "baseline" (against its outputs)
  std::optional<double> atol, rtol;
  bool empty() const { return check.empty() && !atol && !rtol; }
  std::string text() const;  // "--check baseline --atol 0.01": as the command line says it
};

// Applies `change` to a spec: --check none drops every check (references, reference kernel,
// check regions); --check baseline compares every output with the baseline's (references and
// the reference kernel dropped); --atol/--rtol replace the tolerances. Results measured under a
// changed check are not the spec's own: the change is appended to the spec's text as a comment,
// so its hashes (and so its workload) differ from the unchanged spec's. Throws Error(kUsage)
// for a value that is not a check or tolerance, tolerances with --check none, and --check
// baseline on a spec without an output.
void override_check(Spec& spec, const CheckOverride& change);

// Validates and completes a Spec however it was built (the YAML loader, Python, a test): names,
// expressions, kernel names against the kernel source, transform values, launches' arguments,
// and a baseline entry for every parameter and transform (the first value where none is given).
// Throws Error(kSpec): "file:line:column: ..." where the Spec has a location, the message alone
// where it has none (a Spec built in memory).
void check_spec(Spec& spec);

}  // namespace gputune
