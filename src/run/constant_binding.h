#pragma once
#include <cstdint>
#include <string>

namespace gputune {

// Why a constant argument (`argument`, filling `symbol` with `bytes` bytes) cannot be copied into
// a module whose symbol has `symbol_bytes` bytes (-1: the module lacks the symbol), or "" when
// it can. `kernel_file` names where the symbol should be declared.
std::string constant_binding_error(const std::string& argument, const std::string& symbol,
                                   uint64_t bytes, int64_t symbol_bytes,
                                   const std::string& kernel_file);

}  // namespace gputune
