#include "run/constant_binding.h"

namespace gputune {

std::string constant_binding_error(const std::string& argument, const std::string& symbol,
                                   uint64_t bytes, int64_t symbol_bytes,
                                   const std::string& kernel_file) {
  const std::string what = "constant argument '" + argument + "'";
  if (symbol_bytes < 0) {
    return what + ": the module has no __constant__ symbol '" + symbol + "'; expected " +
           kernel_file + " to declare it at namespace scope for this config (is it inside " +
           "#if, a namespace or extern without a definition?)";
  }
  if (bytes > static_cast<uint64_t>(symbol_bytes)) {
    return what + " has " + std::to_string(bytes) +
           " bytes, larger than the __constant__ "
           "symbol '" +
           symbol + "' of " + kernel_file + " (" + std::to_string(symbol_bytes) +
           " bytes); expected a count that fits the symbol";
  }
  return "";
}

}  // namespace gputune
