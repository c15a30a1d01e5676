#include "run/host_buffers.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "gputune/error.h"
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

std::vector<unsigned char> host_fill(const ArgumentSpec& argument, ScalarType type,
                                     uint64_t count) {
  if (argument.fill == Fill::kData) return given_bytes(argument, argument.data, "data", count);
  std::vector<unsigned char> data(count * size_of(type));
  visit_type(type, [&](auto zero) {
    using T = decltype(zero);
    T* out = reinterpret_cast<T*>(data.data());
    switch (argument.fill) {
      case Fill::kZeros:
        std::fill(out, out + count, T{});
        break;
      case Fill::kConstant:
        std::fill(out, out + count, convert<T>(argument.fill_value));
        break;
      case Fill::kIota:
        for (uint64_t i = 0; i < count; ++i) out[i] = static_cast<T>(i);
        break;
      case Fill::kData:  // returned above
        break;
      case Fill::kRandom: {
        std::mt19937_64 engine(argument.seed);
        std::uniform_real_distribution<double> uniform(argument.fill_low, argument.fill_high);
        for (uint64_t i = 0; i < count; ++i) {
          const double value = uniform(engine);
          if constexpr (std::is_floating_point_v<T>) {
            out[i] = static_cast<T>(value);
          } else {
            out[i] = static_cast<T>(std::floor(value));
          }
        }
        break;
      }
    }
    return 0;
  });
  return data;
}

std::vector<HostBuffer> make_host_buffers(const Problem& problem) {
  const std::vector<BufferShape> shapes = problem.buffers();
  std::vector<HostBuffer> buffers;
  size_t next = 0;
  for (const ArgumentSpec& argument : problem.spec().arguments) {
    if (!argument.is_buffer) continue;
    if (next >= shapes.size()) throw Error(ErrorCode::kInternal, "fewer buffers than arguments");
    HostBuffer host;
    host.shape = shapes[next++];
    host.output = argument.output;
    host.scratch = argument.scratch;
    if (!host.output && !host.scratch) {
      host.data = host_fill(argument, host.shape.type, host.shape.count);
    }
    if (host.output && argument.reference) {
      host.data = given_bytes(argument, argument.reference, "reference", host.shape.count);
      host.given_reference = true;
    }
    if (host.output) {
      host.region = resolve_check_region(argument, host.shape.count, problem.problem_values());
      if (argument.initialised)
        host.initial = host_fill(argument, host.shape.type, host.shape.count);
    }
    buffers.push_back(std::move(host));
  }
  return buffers;
}

}  // namespace gputune
