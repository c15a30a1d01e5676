#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gputune/value.h"

namespace gputune {

// The sizes of one kernel launch, as a generic transform may change them.
struct LaunchGeometry {
  std::array<uint32_t, 3> block{1, 1, 1}, grid{1, 1, 1};
  uint32_t dynamic_shared_bytes = 0;
};

// What generic transforms change in a variant.
struct TransformedVariant {
  std::string prelude;                       // source placed before the kernel
  std::vector<std::string> compile_options;  // appended to the variant's
  std::vector<LaunchGeometry> launches;      // the variant's launches, in order
};

// A transformation that applies to any kernel without editing its source (a spec's
// `transforms:`). Everything about one lives in its entry of the table.
struct GenericTransform {
  std::string name;
  // Why a value is not accepted ("unknown block order 'diag'; expected ..."), "" when it is.
  std::function<std::string(const Value&)> reject;
  std::function<void(const Value&, TransformedVariant*)> apply;
  // Which remedy of the bottleneck method it is (core/remedy.h's names); "" for none.
  std::string remedy;
};

// Every generic transform, in the order messages list them.
const std::vector<GenericTransform>& generic_transforms();
const GenericTransform* find_generic_transform(const std::string& name);  // null when unknown
std::vector<std::string> generic_transform_names();

// Adds a transform to the table (tests; a transform shipped with gputune is an entry in
// generic_transforms.cpp). Throws Error(kUsage) for a name already there.
void register_generic_transform(GenericTransform transform);

}  // namespace gputune
