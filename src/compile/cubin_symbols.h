#pragma once
// Reads a compiled module's symbol table (a cubin is ELF64), so that what a module defines can
// be checked where no GPU is: the runner asks the driver, tests and tools ask this.
#include <cstdint>
#include <string>

namespace gputune {

// The size in bytes of the variable or function `name` in `cubin`, or -1 when it has no such
// symbol or the image is not a readable ELF64 file.
int64_t cubin_symbol_bytes(const std::string& cubin, const std::string& name);

// What ptxas gave the kernel `function` (its lowered name), read from the cubin itself: NVRTC
// may serve a cubin from its own cache without running ptxas again, and then its log lacks the
// resource report (seen with NVRTC 13.0.88). -1 where the cubin does not say.
int cubin_registers(const std::string& cubin, const std::string& function);
}  // namespace gputune
