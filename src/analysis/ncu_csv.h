#pragma once
#include <map>
#include <string>
#include <vector>

namespace gputune {

// One profiled kernel launch: metric name -> value in base units (byte, ns, hz, byte/s, ...).
// Cells that are empty or `n/a` are left out, so a missing metric reads as unknown, not 0.
struct KernelCounters {
  std::string kernel;                        // the "Kernel Name" column
  std::map<std::string, double> values;      // numeric cells, in base units
  std::map<std::string, std::string> units;  // base unit of each value ("" for plain numbers)
  std::map<std::string, std::string> text;   // cells that are not numbers ("PolicySpread")
};

// Parses `ncu --csv --page raw` output: one header row, a units row, one row per kernel. Lines
// before the header (==PROF== lines, the profiled program's own output) and after the rows are
// skipped. Thousands separators ("1,980,000") are read; units with prefixes (us, Kbyte, Gbyte/s,
// Mhz, sector/ms) are converted to the base units `--print-units base` prints. Throws
// Error(kIo) naming `what` when there is no header or a row's cell count differs from it.
std::vector<KernelCounters> parse_ncu_raw_csv(const std::string& output,
                                              const std::string& what = "ncu output");

// A value with `unit` in base units; `base_unit` receives the unit it is then in.
double to_base_unit(double value, const std::string& unit, std::string* base_unit);

}  // namespace gputune
