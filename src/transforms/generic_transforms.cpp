#include <algorithm>

#include "gputune/error.h"
#include "transforms/block_order.h"
#include "transforms/generic_transform.h"

namespace gputune {
namespace {

std::vector<GenericTransform> built_in() {
  return {
      {"block_order",
       [](const Value& value) -> std::string {
         if (!value.is_number() && is_block_order(value.as_symbol())) return "";
         return "unknown block order '" + value.text() +
                "'; expected row, column, diagonal or swizzleN with N in 2..64";
       },
       [](const Value& value, TransformedVariant* variant) {
         variant->prelude += block_order_prelude(value.as_symbol());
       },
       "block_order"},
      {"max_registers",
       [](const Value& value) -> std::string {
         if (value.is_integer() && value.as_number() >= 0 && value.as_number() <= 255) return "";
         return "max_registers value " + value.text() +
                " is not an integer in 0..255; expected 0 (no cap) or a register count";
       },
       [](const Value& value, TransformedVariant* variant) {
         if (value.as_number() > 0) {
           variant->compile_options.push_back("--maxrregcount=" + value.text());
         }
       },
       "register_cap"},
      {"fast_math",
       [](const Value& value) -> std::string {
         if (value.is_integer() && (value.as_number() == 0 || value.as_number() == 1)) return "";
         return "fast_math value " + value.text() + " is not 0 or 1; expected a boolean";
       },
       [](const Value& value, TransformedVariant* variant) {
         if (value.as_number() != 0) variant->compile_options.push_back("--use_fast_math");
       },
       "cheaper_instructions"},
  };
}

std::vector<GenericTransform>& table() {
  static std::vector<GenericTransform> transforms = built_in();
  return transforms;
}

}  // namespace

const std::vector<GenericTransform>& generic_transforms() { return table(); }

const GenericTransform* find_generic_transform(const std::string& name) {
  for (const GenericTransform& transform : table()) {
    if (transform.name == name) return &transform;
  }
  return nullptr;
}

std::vector<std::string> generic_transform_names() {
  std::vector<std::string> names;
  for (const GenericTransform& transform : table()) names.push_back(transform.name);
  return names;
}

void register_generic_transform(GenericTransform transform) {
  if (find_generic_transform(transform.name)) {
    throw Error(ErrorCode::kUsage, "generic transform '" + transform.name + "' exists already");
  }
  table().push_back(std::move(transform));
}

}  // namespace gputune
