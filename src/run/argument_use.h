#pragma once
// Whether the arguments a spec declares are used as declared: a read-only argument (an input)
// the baseline changed, an output it left untouched (issue 30: a file that marks the wrong
// argument as its output is otherwise "checked" on an input).
#include <string>
#include <vector>

#include "run/host_buffers.h"

namespace gputune {

// The bytes an output holds before a checked run when the kernel writes none of it: its initial
// contents where it is initialised, else the poison of its type; empty where they are not known
// on the host (filled on the GPU).
std::vector<unsigned char> untouched_output(const HostBuffer& buffer);

// One sentence per argument used otherwise than declared, "" where none is: `before` holds each
// buffer's bytes before the baseline ran (an input's contents; an output's untouched_output),
// `after` after it ran, both parallel to `buffers`; an empty entry is not compared (scratch,
// constants, what is not known).
std::string misused_arguments(const std::vector<HostBuffer>& buffers,
                              const std::vector<std::vector<unsigned char>>& before,
                              const std::vector<std::vector<unsigned char>>& after);

}  // namespace gputune
