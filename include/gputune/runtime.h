#pragma once
// gputune's run-time library: picks a tuned config of a kernel for the problem and GPU an
// application meets, from release databases (docs/release-format.md), and launches the
// config's embedded code. It needs neither NVRTC nor the kernel source; libcuda is opened only
// when code is loaded or the current device is described. Only the standard library here.
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(_WIN32)
#define GPUTUNE_RUNTIME_API
#else
#define GPUTUNE_RUNTIME_API __attribute__((visibility("default")))
#endif

namespace gputune::runtime {

// Thrown in strict mode for bad input, and by load()/launch() and DeviceDescription::current()
// when the GPU cannot do what was asked. `cause()` is the one-line cause that lenient mode puts
// in warnings().
class GPUTUNE_RUNTIME_API RuntimeError : public std::runtime_error {
 public:
  explicit RuntimeError(const std::string& message) : std::runtime_error(message) {}
};

// No driver or no such device.
class GPUTUNE_RUNTIME_API NoGpuError : public RuntimeError {
 public:
  using RuntimeError::RuntimeError;
};

// Which rule answered, in the order they are tried.
enum class Tier { kOverride, kExact, kNearestProblem, kSameFamily, kModel, kDefault };
GPUTUNE_RUNTIME_API const char* tier_name(Tier tier);  // "nearest_problem"

// What selection needs of a GPU. A live one comes from current(); one without a GPU (tests,
// the CLI's --device-name) from described(), its limits those of its compute capability.
struct GPUTUNE_RUNTIME_API DeviceDescription {
  std::string name;  // "NVIDIA H100 80GB HBM3", as the driver names it
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int max_threads_per_block = 1024;
  int max_registers_per_block = 65536;
  int max_shared_bytes_per_block = 0;  // the opt-in maximum for dynamic shared memory
  int ordinal = -1;                    // the driver's device; -1: described, no GPU behind it

  // Throws NoGpuError without a driver or without that device.
  static DeviceDescription current(int ordinal = 0);
  static DeviceDescription described(std::string name, int cc_major, int cc_minor, int sm_count);
  std::string arch() const { return "sm_" + std::to_string(cc_major * 10 + cc_minor); }
};

// One parameter of a config: a number (most) or a symbol (block_order: "swizzle8").
struct Parameter {
  std::string name;
  std::string text;  // as the config codec writes it: "128", "swizzle8"
  double number = 0;
  bool is_number = false;
};
using Config = std::vector<Parameter>;  // in the spec's parameter order
using ProblemValues = std::map<std::string, double>;

// One kernel launch of the selected config at the problem, from the spec's expressions. A
// variant of the transformation engine (docs/engine.md) launches merged: thread_merge_x/y
// shrink the block, block_merge_x/y grow it and shrink the grid, and a block-merged kernel
// takes the original grid's extents as trailing `unsigned int` parameters, which launch()
// appends to the application's arguments.
struct LaunchGeometry {
  std::string kernel;  // the spec's kernel name for this launch, parameters substituted
  std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  uint32_t dynamic_shared_bytes = 0;
  // How many arguments the application passes to launch() (the spec's, less constants).
  size_t argument_count = 0;
  // Appended after them: the original grid's x, then y extent, for the merged dimensions.
  std::vector<uint32_t> trailing_arguments;
};

struct SelectorState;  // the opened layers, shared with the selections they answered

class GPUTUNE_RUNTIME_API Selection {
 public:
  Config config;  // empty only when no layer knows the kernel at all
  Tier tier = Tier::kDefault;
  double distance = 0;       // log-ratio distance to the stored problem (0: exact)
  double predicted_ms = -1;  // stored median or model prediction; -1: unknown
  std::string layer;         // the release file (or "override") that answered
  std::string explanation;   // which tier answered, and why each tier above it did not
  ProblemValues problem;     // the problem selected for, the spec's defaults filled in
  std::vector<LaunchGeometry> launches;

  // The value of a parameter; throws RuntimeError when the config lacks it.
  double number(const std::string& parameter) const;
  std::string text(const std::string& parameter) const;
  // Whether the answering layer embeds code of this config (cubin or PTX).
  bool has_code() const { return code_config_id_ >= 0; }
  // The loaded function (a CUfunction) of launch `index`, from the cubin for the device's
  // architecture, else the PTX; loaded once per selector. Throws RuntimeError (NoGpuError
  // without a GPU) where there is no code or it does not load.
  void* load(size_t index = 0) const;
  // Launches launch `index` with the kernel's arguments (pointers to each, as cuLaunchKernel
  // takes them, as the spec lists them) on `stream` (a CUstream; nullptr: the default stream),
  // the launch's trailing arguments appended. Throws RuntimeError.
  void launch(void** arguments, void* stream = nullptr, size_t index = 0) const;
  // The JSON both front ends print: config, tier, distance, predicted_ms, layer,
  // explanation, problem, launches.
  std::string to_json() const;

 private:
  friend class Selector;
  std::shared_ptr<SelectorState> state_;
  int layer_index_ = -1;
  int64_t code_config_id_ = -1;
  int device_ordinal_ = -1;
  std::string device_arch_;
};

struct Options {
  // Bad input (missing, truncated or foreign files, a newer format, a source hash that
  // differs) throws RuntimeError instead of becoming a warning and the default tier.
  bool strict = false;
};

// An override: this config wins for the kernel on devices of that name ("*": any) at that
// problem (empty: any), as long as it is valid there.
struct Override {
  std::string kernel;
  std::map<std::string, std::string> config;  // parameter -> value text; others: baseline
  std::string device_name = "*";
  ProblemValues problem;
};

// Release files opened once, read-only; select() is thread-safe and memoized.
class GPUTUNE_RUNTIME_API Selector {
 public:
  // Layers in priority order: the user's files first, then the shipped ones.
  static Selector open(const std::vector<std::string>& paths, Options options = {});
  ~Selector();
  Selector(Selector&&) noexcept;
  Selector& operator=(Selector&&) noexcept;

  // `source_hash`: the hash of the kernel source the application was built with ("" to not
  // check); a layer whose kernel differs is skipped with a warning.
  Selection select(const std::string& kernel, const ProblemValues& problem,
                   const DeviceDescription& device, const std::string& source_hash = "") const;
  void add_override(Override entry);
  // Each cause of bad input once, in the order met.
  std::vector<std::string> warnings() const;

 private:
  explicit Selector(std::shared_ptr<SelectorState> state);
  Selection select_unguarded(const std::string& kernel, const ProblemValues& problem,
                             const DeviceDescription& device, const std::string& source_hash) const;
  std::shared_ptr<SelectorState> state_;
};

// Device memory for applications (and the example) that do not use the CUDA runtime: made in
// the primary context of `ordinal`. Throws NoGpuError / RuntimeError.
class GPUTUNE_RUNTIME_API DeviceBuffer {
 public:
  DeviceBuffer(size_t bytes, int ordinal = 0);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  uint64_t address() const { return address_; }  // a CUdeviceptr
  void upload(const void* host);
  void download(void* host) const;

 private:
  uint64_t address_ = 0;
  size_t bytes_ = 0;
};

// Waits for every launch of the current context; throws RuntimeError naming a failed launch.
GPUTUNE_RUNTIME_API void synchronize();

}  // namespace gputune::runtime
