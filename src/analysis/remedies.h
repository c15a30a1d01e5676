#pragma once
#include <string>
#include <utility>
#include <vector>

#include "analysis/bottleneck.h"
#include "core/remedy.h"
#include "gputune/spec.h"

namespace gputune {

// The knobs of a spec that apply `remedy`, each with the way it does: the parameters its
// `remedies:` map names, then the generic transforms whose table entry is that remedy (either
// way: their values are symbols or on/off). Empty when the space has none.
std::vector<RemedyKnob> knobs_for(const Spec& spec, Remedy remedy);

// Each remedy with the knobs that apply it, in the order given, remedies without knobs left out.
std::vector<std::pair<Remedy, std::vector<RemedyKnob>>> knobs_for(
    const Spec& spec, const std::vector<Remedy>& remedies);

// The knobs' names alone.
std::vector<std::string> knob_names(const std::vector<RemedyKnob>& knobs);

using RemedyKnobs = std::vector<std::pair<Remedy, std::vector<RemedyKnob>>>;

// Counters judged in the terms of one spec, worked out once for every reader (gputune analyze,
// stored analyses, the bottleneck strategy's profiles, the report): the classifier's analysis,
// with DRAM throughput judged against `copy_bandwidth_gbs` (the device's measured copy
// bandwidth; 0 when unknown: the theoretical peak alone), and the spec's knobs for each remedy
// it names.
struct Diagnosis {
  BottleneckAnalysis analysis;
  RemedyKnobs knobs;
};
Diagnosis diagnose(const Spec& spec, const CounterValues& counters, double copy_bandwidth_gbs);

}  // namespace gputune
