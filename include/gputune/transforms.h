#pragma once
// What the transformation engine can do with a spec's kernel (docs/engine.md), for the command
// line (`gputune transforms`, `gputune source`) and Python alike.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gputune/spec.h"
#include "gputune/value.h"

namespace gputune {

// A statement or declaration of the kernel file that a knob changes, or that stops it.
struct TransformPlace {
  std::string file;
  int line = 0, column = 0;
  std::string text;  // its first line
};

// One value of a transform and whether the spec's space can take it.
struct TransformValue {
  Value value;
  bool legal = false;
  // Not legal: why (the constraint or limit that prunes it with the baseline's other values).
  // Legal only with other values than the baseline's: why not with those, and a config where
  // it is legal.
  std::string why;
};

struct TransformInfo {
  std::string name;     // as a spec writes it: "thread_merge_y", "unroll(k_loop)"
  bool engine = false;  // a knob of the engine (else a generic transform)
  bool listed = false;  // in the spec's transforms (else one it could add)
  // Whether the engine can give it other values than its neutral one for this kernel (always,
  // for a generic transform).
  bool applies = false;
  std::string summary;  // what it does
  // The engine's verdict: what it applies to, or why it does not.
  std::string reason;
  std::vector<TransformPlace> places;
  // The spec's values (listed), or values it could take (not listed).
  std::vector<TransformValue> values;
  std::vector<std::string> remedies;  // "instruction_parallelism (raise)"
};

// A global-memory access of the kernel, as the engine's access analysis sees it
// (docs/engine.md, "The access analysis").
struct AccessInfo {
  TransformPlace place;
  std::string kernel, array;
  std::string access;       // "read", "write" or "read+write"
  std::string index;        // an affine form over threadIdx, blockIdx and loop counts, or "?"
  std::string index_class;  // "constant", "thread/block ids", "loop iterator", "unknown"
  std::string coalescing;   // "coalesced", "uniform", "uncoalesced", "unknown"
  std::vector<std::string> shared;     // "threads along y", "blocks along x"
  std::vector<std::string> decisions;  // what each of the method's rules decided
};

struct TransformsReport {
  std::string title;  // "tests/fixtures/engine/matmul_int.yaml m=1000 ..."
  // Where the engine cannot parse the kernel: Clang's first error, and that its knobs keep
  // their neutral values. "" otherwise.
  std::string note;
  std::vector<TransformInfo> transforms;  // the spec's, in its order, then the engine's others
  std::vector<AccessInfo> accesses;       // empty where the engine cannot parse the kernel
  // Loop fusion's analysis of a launch sequence (the chain, the dependence distances, the
  // halos, what lives in shared memory), one line each; empty for a single launch.
  std::vector<std::string> fusion;
  // The method's rules' pick, every strategy's first variant (docs/engine.md, "The rules'
  // pick"): its config as JSON ("" where no rule fires) and, per knob, the rule that set it.
  std::string rule_pick_config;
  std::vector<std::pair<std::string, std::string>> rule_pick;  // knob, "value: rule"
  std::string text() const;
  std::string json() const;
};

// The spec's transforms and the engine's other knobs on its kernel. Throws Error(kSpec) for a
// spec whose space is empty.
TransformsReport transforms_report(const Spec& spec);

// Which variant `variant_source` gives: a config (a JSON object; the dimensions it does not
// name take the baseline's values), an index of the space, or the best stored in a database.
// None of them: the baseline.
struct VariantChoice {
  std::string config;
  std::optional<uint64_t> index;
  std::string best_db;
};

// A variant as it is compiled: its kernel file after the engine's rewrite, with its launches.
struct VariantSource {
  uint64_t index = 0;
  std::string config;  // {"thread_merge_y":2,...}
  std::string file;    // the kernel file as the spec names it
  std::string original;
  std::string source;   // the kernel file the variant compiles (the original where unchanged)
  std::string prelude;  // what generic transforms put before it ("" for none)
  std::vector<std::string> compile_options;
  // Why the engine cannot rewrite the kernel for this config ("" when it can): then `source`
  // is the original and the variant is a compile error.
  std::string refusal;
  // Why the space leaves this config out ("" when it is valid): a search never measures it.
  std::string pruned;
  struct Launch {
    std::string kernel;
    std::array<uint32_t, 3> block{1, 1, 1}, grid{1, 1, 1};
    std::vector<uint32_t> trailing_arguments;  // a block-merged kernel's original grid
  };
  std::vector<Launch> launches;
  std::string device;  // with VariantChoice::best_db: the GPU it was best on
  // A unified diff from the original to `source` ("" when equal).
  std::string diff() const;
  std::string json() const;
};

// Throws Error(kUsage) for a config or index that is not one of the space, Error(kIo) for a
// database that does not exist or holds no measured variant of the spec.
VariantSource variant_source(const Spec& spec, const VariantChoice& choice);

}  // namespace gputune
