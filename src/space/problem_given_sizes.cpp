// Problem's check of the data a spec gives against its buffers' sizes.
#include <algorithm>

#include "gputune/error.h"
#include "space/problem.h"

namespace gputune {

// Data a spec gives (a file's elements, a reference, Python's arrays) must be as long as the
// buffer at these problem values: said here, where the spec is, not when a GPU worker fills it.
void Problem::check_given_sizes() const {
  const bool given =
      std::any_of(spec_.arguments.begin(), spec_.arguments.end(), [](const ArgumentSpec& arg) {
        return arg.data || arg.reference || (arg.reference_fill && arg.reference_fill->data);
      });
  if (!given) return;
  const std::vector<BufferShape> shapes = buffers();
  size_t next = 0;
  for (const ArgumentSpec& arg : spec_.arguments) {
    if (!arg.is_buffer) continue;
    const BufferShape& shape = shapes[next++];
    const uint64_t expected = shape.count * size_of(arg.type);
    for (const auto& [bytes, what] :
         {std::make_pair(arg.fill == Fill::kData ? arg.data : nullptr, "data"),
          std::make_pair(arg.output ? arg.reference : nullptr, "reference"),
          std::make_pair(arg.output && arg.reference_fill && arg.reference_fill->fill == Fill::kData
                             ? arg.reference_fill->data
                             : nullptr,
                         "reference")}) {
      if (bytes && bytes->size() != expected) {
        throw Error(
            ErrorCode::kSpec,
            arg.where.message("argument '" + arg.name + "': its " + what + " has " +
                              std::to_string(bytes->size()) + " bytes, but " + arg.count.text +
                              " = " + std::to_string(shape.count) + " " + type_name(arg.type) +
                              " elements need " + std::to_string(expected) +
                              "; expected data of the argument's size"));
      }
    }
  }
}

}  // namespace gputune
