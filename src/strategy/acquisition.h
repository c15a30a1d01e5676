#pragma once
#include "gputune/measurement.h"

namespace gputune {

// Expected improvement of a config whose log time is believed N(mean, stddev^2) over the best
// log time so far, counting only gains beyond `margin`.
double expected_improvement(double best, double mean, double stddev, double margin);

// The log of an ok measurement's median time; false for a failure or a time that is not > 0.
bool ok_log_time(const Measurement& m, double* log_ms);

}  // namespace gputune
