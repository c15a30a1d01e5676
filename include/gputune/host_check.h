#pragma once
// A check written by the caller (Python's tune(check=...)): it judges each variant's outputs in
// the caller's process instead of comparing them with a reference.
#include <functional>
#include <string>
#include <vector>

#include "gputune/spec.h"

namespace gputune {

// A buffer argument's contents, flat, in the spec's element type. The bytes are shared, not
// copied: a caller may keep them (e.g. as a numpy array's base) after the check returns.
struct HostArray {
  std::string name;
  ScalarType type = ScalarType::kFloat32;
  SharedBytes bytes;
  uint64_t count() const { return bytes ? bytes->size() / size_of(type) : 0; }
};

// What one variant's checked run left in its outputs, and the inputs it read (input buffers and
// constant arguments, the same for every variant), each in the spec's argument order.
struct HostCheckArrays {
  std::string config;  // the variant's config as JSON text, for messages
  std::vector<HostArray> outputs;
  std::vector<HostArray> inputs;
};

// Returns "" when the outputs are right, else why they are not; the variant is then a
// kWrongAnswer with that message, as it is when the function throws a std::exception (with
// what() as the message). A gputune::Error it throws ends the search (an interrupt, say).
using HostCheck = std::function<std::string(const HostCheckArrays&)>;

}  // namespace gputune
