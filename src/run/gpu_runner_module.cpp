// GpuRunner (gpu_runner.h): a variant's module loaded, ahead of its turn where the lookahead
// says what comes next, its constants uploaded and its launches readied.
#include "run/gpu_runner.h"

#include <cstring>
#include <string>

#include "gputune/error.h"
#include "run/constant_binding.h"
#include "run/launch_limits.h"
#include "run/scalar_visit.h"

namespace gputune {
namespace {

bool is_image_error(CUresult result) {
  return result == CUDA_ERROR_NO_BINARY_FOR_GPU || result == CUDA_ERROR_INVALID_IMAGE ||
         result == CUDA_ERROR_INVALID_PTX || result == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ||
         result == CUDA_ERROR_JIT_COMPILER_NOT_FOUND || result == CUDA_ERROR_INVALID_SOURCE;
}

// Modules loaded ahead and not yet taken: the next one is what the lookahead offers; an older
// one stays in case the candidates come in another order.
constexpr size_t kMaxPrefetched = 2;

bool same_candidate(const Candidate& a, const Candidate& b) {
  return a.variant.index == b.variant.index && a.variant.config == b.variant.config &&
         a.kernel.image == b.kernel.image;
}

}  // namespace

bool GpuRunner::load(const Candidate& candidate, cuda::Module* module,
                     std::vector<CUfunction>* functions, Prepared* prepared, Measurement* m) {
  const Variant& v = candidate.variant;
  auto fail = [m](Status status, const std::string& message) {
    m->status = status;
    m->message = message;
    return false;
  };

  CUresult result = CUDA_SUCCESS;
  if (!take_prefetched(candidate, module, &result)) {
    result = cuda::Module::load(candidate.kernel.image, module);
  }
  if (result != CUDA_SUCCESS) {
    if (!is_image_error(result)) throw cuda::CudaError(result, "cuModuleLoadData");
    return fail(Status::kCompileError, "cuModuleLoadData: " + cuda::cuda_error_name(result) +
                                           " (compiled for another architecture?)");
  }
  const CompiledKernel& kernel = candidate.kernel;
  for (const std::string& name : kernel.lowered_names) {
    CUfunction function = nullptr;
    result = module->function(name, &function);
    if (result != CUDA_SUCCESS) {
      return fail(Status::kCompileError,
                  "no kernel '" + name + "' in the module: " + cuda::cuda_error_name(result));
    }
    functions->push_back(function);
  }

  if (std::string why = upload_constants(*module); !why.empty()) {
    return fail(Status::kCompileError, why);
  }

  for (const Launch& launch : v.launches) {
    if (launch.kernel >= functions->size()) {
      throw Error(ErrorCode::kInternal, "a launch names kernel " + std::to_string(launch.kernel) +
                                            " of " + std::to_string(functions->size()) +
                                            " compiled");
    }
    Prepared::Call& call = prepared->calls.emplace_back();
    call.launch = &launch;
    call.function = (*functions)[launch.kernel];
    if (std::string why = fit_launch(*context_, call.function, launch); !why.empty()) {
      if (v.launches.size() > 1) {
        why = v.kernel_name_expressions[launch.kernel] + " (launch " +
              std::to_string(prepared->calls.size()) + "): " + why;
      }
      return fail(Status::kResourceExceeded, why);
    }
    for (size_t a : launch.arguments) call.slots.push_back(argument_slot(a, v));
    // A block-merged kernel's extra parameters: the original grid's extents (unsigned int).
    for (uint32_t extent : launch.trailing_arguments) call.slots.push_back(extent);
  }
  for (Prepared::Call& call : prepared->calls) {
    for (uint64_t& slot : call.slots) call.params.push_back(&slot);
  }
  return true;
}

CUresult GpuRunner::launch_all(Prepared& prepared) const {
  for (Prepared::Call& call : prepared.calls) {
    const Launch& l = *call.launch;
    const CUresult result = cuda::launch(
        call.function, {l.grid[0], l.grid[1], l.grid[2]}, {l.block[0], l.block[1], l.block[2]},
        l.dynamic_shared_bytes, state_->stream, call.params.data());
    if (result != CUDA_SUCCESS) return result;
  }
  return CUDA_SUCCESS;
}

uint64_t GpuRunner::argument_slot(size_t a, const Variant& v) const {
  uint64_t slot = 0;
  size_t buffer = 0, scalar = 0;
  for (size_t i = 0; i < a; ++i) (arguments_[i].is_buffer ? buffer : scalar) += 1;
  const ArgumentSpec& argument = arguments_[a];
  if (argument.is_buffer) {
    const CUdeviceptr pointer = state_->buffers[buffer].get();
    std::memcpy(&slot, &pointer, sizeof(pointer));
    return slot;
  }
  if (scalar >= v.scalar_arguments.size()) {
    throw Error(ErrorCode::kInternal, "the variant lacks scalar argument " + argument.name);
  }
  visit_type(argument.type, [&](auto zero) {
    const auto converted = convert<decltype(zero)>(v.scalar_arguments[scalar]);
    std::memcpy(&slot, &converted, sizeof(converted));
    return 0;
  });
  return slot;
}

std::string GpuRunner::upload_constants(const cuda::Module& module, bool missing_ok) const {
  for (const HostBuffer& host : host_) {
    if (!host.constant) continue;
    cuda::Module::Global global;
    const CUresult result = module.global(host.symbol, &global);
    if (result != CUDA_SUCCESS && result != CUDA_ERROR_NOT_FOUND) {
      throw cuda::CudaError(result, "cuModuleGetGlobal");
    }
    if (result == CUDA_ERROR_NOT_FOUND && missing_ok) continue;
    const int64_t symbol_bytes = result == CUDA_SUCCESS ? static_cast<int64_t>(global.bytes) : -1;
    const std::string why = constant_binding_error(host.shape.name, host.symbol, host.input.size(),
                                                   symbol_bytes, kernel_file_);
    if (!why.empty()) return why;
    cuda::Module::upload(global, host.input.data(), host.input.size());
  }
  return "";
}

bool GpuRunner::take_prefetched(const Candidate& candidate, cuda::Module* module,
                                CUresult* result) {
  for (auto p = state_->prefetched.begin(); p != state_->prefetched.end(); ++p) {
    if (!p->loaded || !same_candidate(p->candidate, candidate)) continue;
    *module = std::move(p->module);
    *result = p->result;
    state_->prefetched.erase(p);
    return true;
  }
  return false;
}

void GpuRunner::load_prefetched() {
  const Candidate* next = lookahead_ ? lookahead_() : nullptr;
  if (next == nullptr || !next->kernel.ok) return;
  for (const PrefetchedModule& p : state_->prefetched) {
    if (same_candidate(p.candidate, *next)) return;
  }
  if (state_->prefetched.size() == kMaxPrefetched) state_->prefetched.pop_front();
  PrefetchedModule& p = state_->prefetched.emplace_back();
  p.candidate = *next;
  p.result = cuda::Module::load(p.candidate.kernel.image, &p.module);
  p.loaded = true;
}

}  // namespace gputune
