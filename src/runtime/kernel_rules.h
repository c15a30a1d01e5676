#pragma once
// What a release file's spec_json says about a kernel, compiled once: its parameters, problem
// values, constraints and launch expressions, to tell whether a config is valid at a problem
// on a device and where it launches.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gputune/runtime.h"

namespace gputune::runtime {

struct ParameterRule {
  std::string name;
  std::vector<Parameter> values;  // as the spec lists them
  bool numeric = true;
};

class KernelRules {
 public:
  explicit KernelRules(const std::string& spec_json);  // throws RuntimeError
  ~KernelRules();

  const std::vector<ParameterRule>& parameters() const { return parameters_; }
  const std::vector<std::string>& problem_names() const { return problem_names_; }
  const Config& baseline() const { return baseline_; }

  // The spec's problem values with `given` over them; throws RuntimeError naming a value the
  // spec lacks.
  ProblemValues complete(const ProblemValues& given) const;
  // A stored config in the spec's parameter order, missing parameters from `fill` (when not
  // null); throws RuntimeError for one that names unknown parameters or misses some.
  Config parse_config(const std::string& config_json, const Config* fill = nullptr) const;

  // Whether the config is valid at the problem on the device: every constraint holds, every
  // launch has whole positive sizes, and threads, registers x threads and static plus dynamic
  // shared bytes fit the device's per-block limits. `registers` and `static_shared_bytes` are
  // the compiled kernel's (0: unknown). Fills `why` when not, `launches` when so.
  bool check(const Config& config, const ProblemValues& problem, const DeviceDescription& device,
             int registers, int static_shared_bytes, std::string* why,
             std::vector<LaunchGeometry>* launches) const;

 private:
  struct Compiled;
  void read(const std::string& spec_json);
  Config read_config(const std::string& config_json, const Config* fill) const;
  std::vector<ParameterRule> parameters_;
  std::vector<std::string> problem_names_;
  ProblemValues default_problem_;
  Config baseline_;
  std::unique_ptr<Compiled> compiled_;
  mutable std::mutex mutex_;  // the expressions share one scope
};

// "128" for 128, "0.5" for 0.5: how numbers are written in configs and explanations.
std::string number_text(double value);
// "128" becomes a number, "swizzle8" a symbol.
Parameter parameter_from_text(const std::string& name, const std::string& text);

}  // namespace gputune::runtime
