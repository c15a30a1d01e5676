#pragma once
#include <string>
#include <vector>

namespace gputune {

// What a compile that succeeded warned about: its log without ptxas's resource report
// (--ptxas-options=-v, which every compile asks for); "" when nothing else is left.
std::string compiler_warnings(const std::string& log);

// The line of a compile log that says what went wrong: the first error
// ("k.cu(3): error: expected a \";\"", "ptxas error   : ..."), else its first line.
std::string first_error_line(const std::string& log);

// Resource use of the kernels we launch, from ptxas -v's report:
//   ptxas info    : Compiling entry function '_Z1kILi4EEvPf' for 'sm_90'
//   ptxas         .     640 bytes stack frame, 392 bytes spill stores, 492 bytes spill loads
//   ptxas info    : Used 32 registers, used 1 barriers, 640 bytes cumulative stack size,
//                   1024 bytes smem
// Only the sections of `symbols` count; several report the most registers and shared memory
// and the sum of spills. Numbers past INT_MAX read as INT_MAX.
struct ResourceReport {
  int registers = 0, shared_bytes = 0, spill_bytes = 0;
};
ResourceReport resources_of(const std::string& log, const std::vector<std::string>& symbols);

}  // namespace gputune
