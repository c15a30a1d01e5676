#pragma once
// Shared by tests/gpu/kernel_*_test.cpp: load a shipped space at a chosen problem size, compile
// one of its variants with NVRTC, run it once on inputs the test chose, and hand back the
// outputs, so each test can compare them with a float64 reference of its own.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "compile/compiler.h"
#include "process/gpu_list.h"
#include "run/cuda_driver.h"
#include "run/runner.h"
#include "search/search.h"
#include "space/problem.h"
#include "spec/spec_loader.h"
#include "test_paths.h"
#include "transforms/block_order.h"

namespace gputune::test {

using Bytes = std::vector<unsigned char>;

template <class T>
Bytes bytes_of(const std::vector<T>& values) {
  Bytes out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

inline std::vector<float> random_floats(size_t count, uint64_t seed, float low = -1.0f,
                                        float high = 1.0f) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(low, high);
  std::vector<float> out(count);
  for (auto& x : out) x = dist(rng);
  return out;
}

// ||got - ref|| / ||ref|| over every element; NaN anywhere gives infinity.
inline double relative_error(const std::vector<float>& got, const std::vector<double>& ref) {
  if (got.size() != ref.size()) return INFINITY;
  double diff = 0, norm = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i])) return INFINITY;
    diff += (got[i] - ref[i]) * (got[i] - ref[i]);
    norm += ref[i] * ref[i];
  }
  return norm == 0 ? std::sqrt(diff) : std::sqrt(diff / norm);
}

// Largest |got - ref| / (atol + |ref|) scaled to the tolerance: <= 1 passes elementwise.
inline size_t first_mismatch(const std::vector<float>& got, const std::vector<double>& ref,
                             double rtol, double atol) {
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i]) || !(std::fabs(got[i] - ref[i]) <= atol + rtol * std::fabs(ref[i]))) {
      return i;
    }
  }
  return got.size();
}

class KernelHarness {
 public:
  // `space` is a shipped spec's name ("transpose"); `set` overrides its problem values.
  KernelHarness(const std::string& space, const Overrides& set)
      : problem_(load_spec(source_dir() + "/spaces/" + space + ".yaml", set)),
        context_(0),
        compiler_(make_nvrtc_compiler()),
        arch_(list_gpus().at(0).arch()) {}

  const Problem& problem() const { return problem_; }

  // The baseline's values with those named in `config` ("TILE=64 VEC=4") replaced.
  uint64_t index(const std::string& config) const {
    const SearchSpace& space = problem_.space();
    std::vector<size_t> digits = space.decode(problem_.baseline_index());
    std::istringstream words(config);
    std::string word;
    while (words >> word) {
      const size_t eq = word.find('=');
      const std::string name = word.substr(0, eq), text = word.substr(eq + 1);
      const int d = space.dimension_index(name);
      if (d < 0) throw std::runtime_error("no dimension " + name);
      const auto& values = space.dimensions()[d].values;
      size_t k = 0;
      while (k < values.size() && values[k].text() != text) ++k;
      if (k == values.size()) throw std::runtime_error("no value " + word);
      digits[d] = k;
    }
    const uint64_t index = space.encode(digits);
    if (!space.valid(index)) throw std::runtime_error("outside the constraints: " + config);
    return index;
  }

  Variant variant(const std::string& config) const { return problem_.variant(index(config)); }

  // Compiles and runs `v` once. Inputs not given are zeroed; outputs are poisoned with 0xFF
  // bytes (NaN) first, so an unwritten element shows. Returns each float32 output by name.
  // `launches` > 1 runs it again on the same buffers (state a launch must leave clean).
  std::map<std::string, std::vector<float>> run(const Variant& v,
                                                const std::map<std::string, Bytes>& inputs,
                                                int launches = 1) {
    const cuda::Api& api = cuda::api();
    CompiledKernel kernel = compiler_->compile(compile_request(problem_, v, arch_));
    if (!kernel.ok) throw std::runtime_error("compile " + v.config + ":\n" + kernel.log);
    cuda::Module module;
    cuda::check(cuda::Module::load(kernel.image, &module), "cuModuleLoadData");
    std::vector<CUfunction> functions;
    for (const std::string& name : kernel.lowered_names) {
      functions.emplace_back();
      cuda::check(module.function(name, &functions.back()), "cuModuleGetFunction");
    }

    const auto shapes = problem_.buffers();
    std::vector<cuda::DeviceBuffer> buffers;
    for (const auto& shape : shapes) {
      buffers.emplace_back(shape.count * size_of(shape.type));
      const auto& arg = argument(shape.name);
      if (arg.output || arg.scratch) {
        buffers.back().fill_bytes(0xFF);
      } else if (auto it = inputs.find(shape.name); it != inputs.end()) {
        if (it->second.size() != buffers.back().bytes()) {
          throw std::runtime_error("input " + shape.name + " has the wrong size");
        }
        buffers.back().upload(it->second.data());
      } else {
        buffers.back().fill_bytes(0);
      }
    }
    // One 8-byte slot per kernel parameter, in spec order.
    std::vector<uint64_t> slots(problem_.spec().arguments.size());
    size_t b = 0, s = 0;
    for (size_t i = 0; i < problem_.spec().arguments.size(); ++i) {
      const ArgumentSpec& arg = problem_.spec().arguments[i];
      void* slot = &slots[i];
      if (arg.is_buffer) {
        const CUdeviceptr p = buffers[b++].get();
        std::memcpy(slot, &p, sizeof p);
      } else {
        const double value = v.scalar_arguments[s++];
        switch (arg.type) {
          case ScalarType::kInt32: {
            const int32_t x = static_cast<int32_t>(value);
            std::memcpy(slot, &x, 4);
            break;
          }
          case ScalarType::kUint32: {
            const uint32_t x = static_cast<uint32_t>(value);
            std::memcpy(slot, &x, 4);
            break;
          }
          case ScalarType::kInt64: {
            const int64_t x = static_cast<int64_t>(value);
            std::memcpy(slot, &x, 8);
            break;
          }
          case ScalarType::kFloat32: {
            const float x = static_cast<float>(value);
            std::memcpy(slot, &x, 4);
            break;
          }
          case ScalarType::kFloat64:
            std::memcpy(slot, &value, 8);
            break;
          default:
            throw std::runtime_error("unsupported scalar type for " + arg.name);
        }
      }
    }
    // Above the default 48 KB of dynamic shared memory a kernel must opt in (as the runner does).
    for (const Launch& l : v.launches) {
      if (l.dynamic_shared_bytes > 48 * 1024) {
        cuda::check(api.cuFuncSetAttribute(functions[l.kernel],
                                           CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                           static_cast<int>(l.dynamic_shared_bytes)),
                    "cuFuncSetAttribute");
      }
    }
    for (int repeat = 0; repeat < launches; ++repeat) {
      for (const Launch& l : v.launches) {
        std::vector<void*> params;
        for (size_t a : l.arguments) params.push_back(&slots[a]);
        cuda::check(api.cuLaunchKernel(functions[l.kernel], l.grid[0], l.grid[1], l.grid[2],
                                       l.block[0], l.block[1], l.block[2], l.dynamic_shared_bytes,
                                       nullptr, params.data(), nullptr),
                    "cuLaunchKernel");
      }
    }
    cuda::check(api.cuCtxSynchronize(), "kernel execution");

    std::map<std::string, std::vector<float>> outputs;
    for (size_t i = 0; i < shapes.size(); ++i) {
      if (!argument(shapes[i].name).output) continue;
      std::vector<float> host(shapes[i].count);
      buffers[i].download(host.data());
      outputs[shapes[i].name] = std::move(host);
    }
    return outputs;
  }

  // The same variant under a generic transform, applied the way Problem::variant applies it.
  static Variant with_block_order(Variant v, const std::string& order) {
    v.prelude = block_order_prelude(order);
    return v;
  }
  static Variant with_option(Variant v, const std::string& option) {
    v.compile_options.push_back(option);
    return v;
  }

 private:
  const ArgumentSpec& argument(const std::string& name) const {
    for (const auto& arg : problem_.spec().arguments) {
      if (arg.name == name) return arg;
    }
    throw std::runtime_error("no argument " + name);
  }

  Problem problem_;
  cuda::Context context_;
  std::unique_ptr<Compiler> compiler_;
  std::string arch_;
};

// Every generic transformation: block orders and register caps must give the same bits,
// fast math the same values within `fast_rtol` (relative L2 error).
inline void expect_transforms_preserve(KernelHarness& h, const Variant& v,
                                       const std::map<std::string, Bytes>& inputs,
                                       const std::string& output, double fast_rtol) {
  const std::vector<float> plain = h.run(v, inputs).at(output);
  for (const char* order : {"row", "column", "diagonal", "swizzle2", "swizzle8", "swizzle64"}) {
    const auto got = h.run(KernelHarness::with_block_order(v, order), inputs).at(output);
    EXPECT_EQ(0, std::memcmp(got.data(), plain.data(), plain.size() * sizeof(float)))
        << "block_order " << order << " changed the result of " << v.config;
  }
  for (const char* cap : {"--maxrregcount=32", "--maxrregcount=64"}) {
    const auto got = h.run(KernelHarness::with_option(v, cap), inputs).at(output);
    EXPECT_EQ(0, std::memcmp(got.data(), plain.data(), plain.size() * sizeof(float)))
        << cap << " changed the result of " << v.config;
  }
  const auto fast = h.run(KernelHarness::with_option(v, "--use_fast_math"), inputs).at(output);
  std::vector<double> reference(plain.begin(), plain.end());
  EXPECT_LE(relative_error(fast, reference), fast_rtol) << "fast_math on " << v.config;
}

}  // namespace gputune::test
