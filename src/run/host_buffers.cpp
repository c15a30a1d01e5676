#include "run/host_buffers.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/expression.h"
#include "gputune/error.h"
#include "run/parallel_fill.h"
#include "run/scalar_visit.h"

namespace gputune {
namespace {

// Given bytes (Fill::kData, ArgumentSpec::reference) must match the buffer's size exactly.
std::vector<unsigned char> given_bytes(const ArgumentSpec& argument, const SharedBytes& bytes,
                                       const char* what, uint64_t count) {
  const uint64_t expected = count * size_of(argument.type);
  if (!bytes || bytes->size() != expected) {
    throw Error(ErrorCode::kSpec, "argument '" + argument.name + "': the " + what + " has " +
                                      std::to_string(bytes ? bytes->size() : 0) + " bytes; " +
                                      std::to_string(count) + " " + type_name(argument.type) +
                                      " elements need " + std::to_string(expected));
  }
  return *bytes;
}

}  // namespace

InputBytes host_fill(const ArgumentSpec& argument, ScalarType type, uint64_t count,
                     unsigned threads) {
  if (argument.fill == Fill::kData) {
    const std::vector<unsigned char> given = given_bytes(argument, argument.data, "data", count);
    return InputBytes(given.begin(), given.end());
  }
  InputBytes data(count * size_of(type));
  visit_type(type, [&](auto zero) {
    using T = decltype(zero);
    T* out = reinterpret_cast<T*>(data.data());
    const Fill fill = argument.fill;
    const T constant = fill == Fill::kConstant ? convert<T>(argument.fill_value) : T{};
    const double low = argument.fill_low, span = argument.fill_high - argument.fill_low;
    const uint64_t seed = argument.seed;
    parallel_ranges(count, threads, [&](uint64_t begin, uint64_t end) {
      switch (fill) {
        case Fill::kZeros:
        case Fill::kConstant:
          std::fill(out + begin, out + end, constant);
          break;
        case Fill::kIota:
          for (uint64_t i = begin; i < end; ++i) out[i] = static_cast<T>(i);
          break;
        case Fill::kData:  // returned above
          break;
        case Fill::kGenerator: {
          // An Expression per range: each thread's own scope (the spec check parsed it).
          Scope scope;
          double* index = scope.slot("i");
          const Expression generator(argument.generator.text, scope);
          for (uint64_t i = begin; i < end; ++i) {
            *index = static_cast<double>(i);
            out[i] = convert<T>(generator.evaluate());
          }
          break;
        }
        case Fill::kRandom:
          for (uint64_t i = begin; i < end; ++i) {
            const double value = low + span * random_unit(seed, i);
            if constexpr (std::is_floating_point_v<T>) {
              out[i] = static_cast<T>(value);
            } else {
              out[i] = static_cast<T>(std::floor(value));
            }
          }
          break;
      }
    });
    return 0;
  });
  return data;
}

std::vector<HostBuffer> make_host_buffers(
    const Problem& problem, const std::function<bool(const ArgumentSpec&)>& fills_on_device) {
  const std::vector<BufferShape> shapes = problem.buffers();
  std::vector<HostBuffer> buffers;
  size_t next = 0;
  const std::vector<ArgumentSpec>& arguments = problem.spec().arguments;
  for (size_t a = 0; a < arguments.size(); ++a) {
    const ArgumentSpec& argument = arguments[a];
    if (!argument.is_buffer) continue;
    if (next >= shapes.size()) throw Error(ErrorCode::kInternal, "fewer buffers than arguments");
    HostBuffer host;
    host.shape = shapes[next++];
    host.output = argument.output;
    host.scratch = argument.scratch;
    host.constant = argument.constant;
    if (host.constant) host.symbol = argument.constant_symbol();
    host.argument = a;
    host.device_fill = fills_on_device && fills_on_device(argument);
    if (!host.output && !host.scratch && !host.device_fill) {
      host.input = host_fill(argument, host.shape.type, host.shape.count);
    }
    if (host.output && argument.reference) {
      host.data = given_bytes(argument, argument.reference, "reference", host.shape.count);
      host.given_reference = true;
    } else if (host.output && argument.reference_fill) {
      const InputBytes expected =
          host_fill(*argument.reference_fill, host.shape.type, host.shape.count);
      host.data.assign(expected.begin(), expected.end());
      host.given_reference = true;
    }
    if (host.output) {
      host.region = resolve_check_region(argument, host.shape.count, problem.problem_values());
      if (argument.initialised && !host.device_fill) {
        host.initial = host_fill(argument, host.shape.type, host.shape.count);
      }
    }
    buffers.push_back(std::move(host));
  }
  return buffers;
}

bool every_output_given(const std::vector<HostBuffer>& buffers) {
  bool any = false;
  for (const HostBuffer& host : buffers) {
    if (!host.output) continue;
    if (!host.given_reference) return false;
    any = true;
  }
  return any;
}

}  // namespace gputune
