#include "run/range_profiler.h"

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <cupti_version.h>
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "run/cuda_driver.h"

namespace gputune {
namespace {

// clang-format off
#define GPUTUNE_CUPTI_FUNCTIONS(X)                                                             \
  X(cuptiGetResultString) X(cuptiGetVersion) X(cuptiProfilerInitialize)                        \
  X(cuptiProfilerDeInitialize) X(cuptiDeviceGetChipName) X(cuptiProfilerGetCounterAvailability)\
  X(cuptiProfilerHostInitialize) X(cuptiProfilerHostDeinitialize)                              \
  X(cuptiProfilerHostGetMetricProperties) X(cuptiProfilerHostConfigAddMetrics)                 \
  X(cuptiProfilerHostGetConfigImageSize) X(cuptiProfilerHostGetConfigImage)                    \
  X(cuptiProfilerHostGetNumOfPasses) X(cuptiProfilerHostEvaluateToGpuValues)                   \
  X(cuptiRangeProfilerEnable) X(cuptiRangeProfilerDisable) X(cuptiRangeProfilerSetConfig)      \
  X(cuptiRangeProfilerGetCounterDataSize) X(cuptiRangeProfilerCounterDataImageInitialize)      \
  X(cuptiRangeProfilerStart) X(cuptiRangeProfilerStop) X(cuptiRangeProfilerDecodeData)         \
  X(cuptiRangeProfilerGetCounterDataInfo)
// clang-format on

struct Cupti {
#define GPUTUNE_CUPTI_MEMBER(name) decltype(&::name) name = nullptr;
  GPUTUNE_CUPTI_FUNCTIONS(GPUTUNE_CUPTI_MEMBER)
#undef GPUTUNE_CUPTI_MEMBER
  std::string missing;  // why the library is not usable; "" when it is
  std::string version;  // "cupti 13.0"
};

// CUPTI's parameter blocks start with their size, which tells the library their version.
template <typename Params>
Params sized(size_t size) {
  Params params{};
  params.structSize = size;
  return params;
}

// $GPUTUNE_CUPTI, the loader's path, then the toolkit's usual places.
void* open_library() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("GPUTUNE_CUPTI"); env != nullptr && *env != '\0') {
    candidates.push_back(env);
  }
  candidates.insert(candidates.end(), {"libcupti.so.13", "libcupti.so"});
  if (const char* cuda = std::getenv("CUDA_HOME"); cuda != nullptr && *cuda != '\0') {
    candidates.push_back(std::string(cuda) + "/lib64/libcupti.so");
    candidates.push_back(std::string(cuda) + "/extras/CUPTI/lib64/libcupti.so");
  }
  candidates.insert(candidates.end(), {"/usr/local/cuda/lib64/libcupti.so",
                                       "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so"});
  for (const std::string& path : candidates) {
    if (void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
  }
  return nullptr;
}

const Cupti& cupti() {
  static const Cupti loaded = [] {
    Cupti api;
    void* handle = open_library();
    if (handle == nullptr) {
      api.missing =
          "CUPTI (libcupti.so) not found on the loader's path, in $CUDA_HOME/lib64 or "
          "/usr/local/cuda/lib64; install it with the CUDA toolkit or set GPUTUNE_CUPTI to its "
          "path";
      return api;
    }
#define GPUTUNE_CUPTI_LOAD(name)                                                  \
  api.name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name));           \
  if (api.name == nullptr && api.missing.empty()) {                               \
    api.missing = "the CUPTI found lacks " #name " (CUPTI 12.6 or newer needed)"; \
  }
    GPUTUNE_CUPTI_FUNCTIONS(GPUTUNE_CUPTI_LOAD)
#undef GPUTUNE_CUPTI_LOAD
    uint32_t version = 0;
    if (api.missing.empty() && api.cuptiGetVersion(&version) == CUPTI_SUCCESS) {
      api.version = "cupti api " + std::to_string(version);
    }
    return api;
  }();
  return loaded;
}

std::string describe(CUptiResult result, const char* call) {
  const char* text = nullptr;
  if (cupti().cuptiGetResultString == nullptr ||
      cupti().cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) {
    text = "unknown error";
  }
  return std::string(call) + ": " + text;
}

bool is_refusal(CUptiResult result) {
  return result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES || result == CUPTI_ERROR_NOT_SUPPORTED ||
         result == CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED ||
         result == CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED ||
         result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
}

std::string refusal_text(CUptiResult result, const char* call) {
  if (result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
    return "CUPTI has no permission to read the GPU's performance counters "
           "(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES); run as root, or load the driver with "
           "NVreg_RestrictProfilingToAdminUsers=0";
  }
  if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    return describe(result, call) + " (another profiler, such as ncu, is attached)";
  }
  return describe(result, call) + " (this GPU cannot be profiled through CUPTI here)";
}

// The host half: metric names to a configuration for one chip, and counter data to values.
class Host {
 public:
  Host(const std::string& chip, const std::vector<uint8_t>& availability) {
    auto params = sized<CUpti_Profiler_Host_Initialize_Params>(
        CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    params.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    params.pChipName = chip.c_str();
    params.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
    const CUptiResult result = cupti().cuptiProfilerHostInitialize(&params);
    if (result != CUPTI_SUCCESS) {
      message_ = describe(result, "cuptiProfilerHostInitialize") + " for chip " + chip;
      return;
    }
    object_ = params.pHostObject;
  }
  ~Host() {
    if (object_ == nullptr) return;
    auto params = sized<CUpti_Profiler_Host_Deinitialize_Params>(
        CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    params.pHostObject = object_;
    cupti().cuptiProfilerHostDeinitialize(&params);
  }
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  const std::string& message() const { return message_; }

  bool knows(const std::string& metric) const {
    auto params = sized<CUpti_Profiler_Host_GetMetricProperties_Params>(
        CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE);
    params.pHostObject = object_;
    params.pMetricName = metric.c_str();
    return cupti().cuptiProfilerHostGetMetricProperties(&params) == CUPTI_SUCCESS;
  }

  // The configuration image of `metrics`, or "" in *why.
  std::vector<uint8_t> config(const std::vector<const char*>& metrics, std::string* why) const {
    auto add = sized<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    add.pHostObject = object_;
    add.ppMetricNames = const_cast<const char**>(metrics.data());
    add.numMetrics = metrics.size();
    CUptiResult result = cupti().cuptiProfilerHostConfigAddMetrics(&add);
    if (result != CUPTI_SUCCESS) {
      *why = describe(result, "cuptiProfilerHostConfigAddMetrics");
      return {};
    }
    auto size = sized<CUpti_Profiler_Host_GetConfigImageSize_Params>(
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
    size.pHostObject = object_;
    result = cupti().cuptiProfilerHostGetConfigImageSize(&size);
    if (result != CUPTI_SUCCESS) {
      *why = describe(result, "cuptiProfilerHostGetConfigImageSize");
      return {};
    }
    std::vector<uint8_t> image(size.configImageSize);
    auto get = sized<CUpti_Profiler_Host_GetConfigImage_Params>(
        CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
    get.pHostObject = object_;
    get.configImageSize = image.size();
    get.pConfigImage = image.data();
    result = cupti().cuptiProfilerHostGetConfigImage(&get);
    if (result != CUPTI_SUCCESS) {
      *why = describe(result, "cuptiProfilerHostGetConfigImage");
      return {};
    }
    return image;
  }

  static size_t passes(std::vector<uint8_t>& image) {
    auto params = sized<CUpti_Profiler_Host_GetNumOfPasses_Params>(
        CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
    params.configImageSize = image.size();
    params.pConfigImage = image.data();
    return cupti().cuptiProfilerHostGetNumOfPasses(&params) == CUPTI_SUCCESS ? params.numOfPasses
                                                                             : 0;
  }

  CUptiResult evaluate(const std::vector<uint8_t>& data, size_t range,
                       const std::vector<const char*>& metrics, std::vector<double>* values) const {
    values->assign(metrics.size(), 0);
    auto params = sized<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    params.pHostObject = object_;
    params.pCounterDataImage = data.data();
    params.counterDataImageSize = data.size();
    params.rangeIndex = range;
    params.ppMetricNames = const_cast<const char**>(metrics.data());
    params.numMetrics = metrics.size();
    params.pMetricValues = values->data();
    return cupti().cuptiProfilerHostEvaluateToGpuValues(&params);
  }

 private:
  CUpti_Profiler_Host_Object* object_ = nullptr;
  std::string message_;
};

// Launches a variant's launch sequence may make in one profile; more are dropped.
constexpr size_t kMaxRanges = 64;

}  // namespace

struct RangeProfiler::Impl {
  CUcontext context = nullptr;
  std::string chip;
  std::vector<uint8_t> availability;
  std::string unavailable;
  bool initialized = false;
  std::unique_ptr<Host> host;
  // The last metric list's configuration: a search asks for the same list every time.
  std::vector<std::string> configured;
  std::vector<const char*> collected;  // into `configured`
  std::vector<std::string> reported;
  std::vector<uint8_t> image;
  CUpti_RangeProfiler_Object* object = nullptr;  // enabled on the context, between profiles

  void disable() {
    if (object == nullptr) return;
    auto params =
        sized<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
    params.pRangeProfilerObject = object;
    cupti().cuptiRangeProfilerDisable(&params);
    object = nullptr;
  }
};

RangeProfiler::RangeProfiler(int ordinal, CUcontext context) : impl_(std::make_unique<Impl>()) {
  Impl& p = *impl_;
  p.context = context;
  const Cupti& api = cupti();
  if (!api.missing.empty()) {
    p.unavailable = api.missing;
    return;
  }
  auto init = sized<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  CUptiResult result = api.cuptiProfilerInitialize(&init);
  if (result != CUPTI_SUCCESS) {
    p.unavailable = is_refusal(result) ? refusal_text(result, "cuptiProfilerInitialize")
                                       : describe(result, "cuptiProfilerInitialize");
    return;
  }
  p.initialized = true;
  auto chip = sized<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = static_cast<size_t>(ordinal);
  result = api.cuptiDeviceGetChipName(&chip);
  if (result != CUPTI_SUCCESS || chip.pChipName == nullptr) {
    p.unavailable = describe(result, "cuptiDeviceGetChipName");
    return;
  }
  p.chip = chip.pChipName;
  auto available = sized<CUpti_Profiler_GetCounterAvailability_Params>(
      CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
  available.ctx = context;
  result = api.cuptiProfilerGetCounterAvailability(&available);
  if (result == CUPTI_SUCCESS) {
    p.availability.resize(available.counterAvailabilityImageSize);
    available.pCounterAvailabilityImage = p.availability.data();
    result = api.cuptiProfilerGetCounterAvailability(&available);
  }
  if (result != CUPTI_SUCCESS) {
    p.unavailable = is_refusal(result) ? refusal_text(result, "cuptiProfilerGetCounterAvailability")
                                       : describe(result, "cuptiProfilerGetCounterAvailability");
    return;
  }
  p.host = std::make_unique<Host>(p.chip, p.availability);
  if (!p.host->message().empty()) p.unavailable = p.host->message();
}

RangeProfiler::~RangeProfiler() {
  impl_->disable();
  impl_->host.reset();
  if (impl_->initialized) {
    auto params =
        sized<CUpti_Profiler_DeInitialize_Params>(CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
    cupti().cuptiProfilerDeInitialize(&params);
  }
}

const std::string& RangeProfiler::unavailable_reason() const { return impl_->unavailable; }

RangeCounters RangeProfiler::profile(const std::vector<RangeMetric>& metrics,
                                     const std::function<CUresult()>& launch) {
  Impl& p = *impl_;
  const Cupti& api = cupti();
  RangeCounters out;
  out.source = api.version.empty() ? "cupti" : api.version;
  if (!p.unavailable.empty()) {
    out.message = p.unavailable;
    out.unavailable = true;
    return out;
  }
  std::vector<std::string> wanted;
  for (const RangeMetric& metric : metrics) wanted.push_back(metric.collect);
  if (wanted != p.configured || p.image.empty()) {
    // A host object's configuration only grows: another list starts from a new one.
    if (!p.configured.empty()) p.host = std::make_unique<Host>(p.chip, p.availability);
    p.configured = wanted;
    p.collected.clear();
    p.reported.clear();
    for (size_t i = 0; i < metrics.size(); ++i) {
      if (!p.host->knows(metrics[i].collect)) continue;
      p.collected.push_back(p.configured[i].c_str());
      p.reported.push_back(metrics[i].report);
    }
    std::string why;
    p.image = p.collected.empty() ? std::vector<uint8_t>{} : p.host->config(p.collected, &why);
    if (p.image.empty()) {
      out.message = p.collected.empty() ? "the chip " + p.chip + " knows none of the metrics" : why;
      return out;
    }
  }

  // Enabled once and kept between profiles: enabling costs about half a second, and with no
  // range started the launches run as usual (tests/gpu/gpu_runner_test.cpp times them).
  if (p.object == nullptr) {
    auto enable =
        sized<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
    enable.ctx = p.context;
    const CUptiResult result = api.cuptiRangeProfilerEnable(&enable);
    if (result != CUPTI_SUCCESS) {
      out.unavailable = is_refusal(result);
      out.message = out.unavailable ? refusal_text(result, "cuptiRangeProfilerEnable")
                                    : describe(result, "cuptiRangeProfilerEnable");
      return out;
    }
    p.object = enable.pRangeProfilerObject;
  }
  CUpti_RangeProfiler_Object* object = p.object;
  // A profile that fails leaves no session behind: the next one starts afresh.
  struct DisableUnlessKept {
    Impl& p;
    bool keep = false;
    ~DisableUnlessKept() {
      if (!keep) p.disable();
    }
  } disable{p};
  CUptiResult result = CUPTI_SUCCESS;

  auto fail = [&out](CUptiResult r, const char* call) {
    out.message = describe(r, call);
    return out;
  };
  auto size = sized<CUpti_RangeProfiler_GetCounterDataSize_Params>(
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  size.pRangeProfilerObject = object;
  size.pMetricNames = const_cast<const char**>(p.collected.data());
  size.numMetrics = p.collected.size();
  size.maxNumOfRanges = kMaxRanges;
  size.maxNumRangeTreeNodes = kMaxRanges;
  result = api.cuptiRangeProfilerGetCounterDataSize(&size);
  if (result != CUPTI_SUCCESS) return fail(result, "cuptiRangeProfilerGetCounterDataSize");
  std::vector<uint8_t> data(size.counterDataSize);
  auto initialize = sized<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  initialize.pRangeProfilerObject = object;
  initialize.counterDataSize = data.size();
  initialize.pCounterData = data.data();
  result = api.cuptiRangeProfilerCounterDataImageInitialize(&initialize);
  if (result != CUPTI_SUCCESS) return fail(result, "cuptiRangeProfilerCounterDataImageInitialize");

  auto config =
      sized<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  config.pRangeProfilerObject = object;
  config.configSize = p.image.size();
  config.pConfig = p.image.data();
  config.counterDataImageSize = data.size();
  config.pCounterDataImage = data.data();
  config.range = CUPTI_AutoRange;
  config.replayMode = CUPTI_KernelReplay;
  config.maxRangesPerPass = kMaxRanges;
  config.numNestingLevels = 1;
  config.minNestingLevel = 1;
  config.passIndex = 0;
  config.targetNestingLevel = 1;
  result = api.cuptiRangeProfilerSetConfig(&config);
  if (result != CUPTI_SUCCESS) return fail(result, "cuptiRangeProfilerSetConfig");

  auto start =
      sized<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
  start.pRangeProfilerObject = object;
  result = api.cuptiRangeProfilerStart(&start);
  if (result != CUPTI_SUCCESS) return fail(result, "cuptiRangeProfilerStart");
  const CUresult launched = launch();
  auto stop = sized<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  stop.pRangeProfilerObject = object;
  result = api.cuptiRangeProfilerStop(&stop);
  if (launched != CUDA_SUCCESS) {
    out.context_lost = cuda::is_sticky(launched);
    out.message = "the profiled launch failed: " + cuda::cuda_error_name(launched);
    return out;
  }
  if (result != CUPTI_SUCCESS) return fail(result, "cuptiRangeProfilerStop");
  if (!stop.isAllPassSubmitted) {
    out.message = "CUPTI did not replay every pass the metrics need (kernel replay)";
    return out;
  }
  auto decode = sized<CUpti_RangeProfiler_DecodeData_Params>(
      CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  decode.pRangeProfilerObject = object;
  result = api.cuptiRangeProfilerDecodeData(&decode);
  if (result != CUPTI_SUCCESS) return fail(result, "cuptiRangeProfilerDecodeData");

  auto info = sized<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = data.data();
  info.counterDataImageSize = data.size();
  result = api.cuptiRangeProfilerGetCounterDataInfo(&info);
  if (result != CUPTI_SUCCESS) return fail(result, "cuptiRangeProfilerGetCounterDataInfo");
  for (size_t range = 0; range < info.numTotalRanges; ++range) {
    std::vector<double> values;
    result = p.host->evaluate(data, range, p.collected, &values);
    if (result != CUPTI_SUCCESS) return fail(result, "cuptiProfilerHostEvaluateToGpuValues");
    auto& launch_values = out.launches.emplace_back();
    for (size_t i = 0; i < values.size(); ++i) launch_values[p.reported[i]] = values[i];
  }
  if (out.launches.empty()) {
    out.message = "CUPTI recorded no launch";
    return out;
  }
  out.ok = true;
  disable.keep = true;
  return out;
}

RangeMetricsCheck check_range_metrics(const std::string& chip,
                                      const std::vector<std::string>& collect) {
  RangeMetricsCheck check;
  if (!cupti().missing.empty()) {
    check.message = cupti().missing;
    return check;
  }
  Host host(chip, {});
  if (!host.message().empty()) {
    check.message = host.message();
    return check;
  }
  std::vector<const char*> known;
  for (const std::string& metric : collect) {
    if (host.knows(metric)) {
      known.push_back(metric.c_str());
    } else {
      check.unknown.push_back(metric);
    }
  }
  if (known.empty()) return check;
  std::vector<uint8_t> image = host.config(known, &check.message);
  if (!image.empty()) check.passes = Host::passes(image);
  return check;
}

}  // namespace gputune
