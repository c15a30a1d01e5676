#include "compile/standard_headers.h"

#include <filesystem>

namespace gputune {
namespace {

// <math.h>'s constants (POSIX, as glibc defines them); the functions are NVRTC's built-ins.
constexpr const char* kMath =
    "#pragma once\n"
    "#ifndef M_PI\n"
    "#define M_E 2.7182818284590452354\n"
    "#define M_LOG2E 1.4426950408889634074\n"
    "#define M_LOG10E 0.43429448190325182765\n"
    "#define M_LN2 0.69314718055994530942\n"
    "#define M_LN10 2.30258509299404568402\n"
    "#define M_PI 3.14159265358979323846\n"
    "#define M_PI_2 1.57079632679489661923\n"
    "#define M_PI_4 0.78539816339744830962\n"
    "#define M_1_PI 0.31830988618379067154\n"
    "#define M_2_PI 0.63661977236758134308\n"
    "#define M_2_SQRTPI 1.12837916709551257390\n"
    "#define M_SQRT2 1.41421356237309504880\n"
    "#define M_SQRT1_2 0.70710678118654752440\n"
    "#endif\n";

// printf is built in; nothing else of <stdio.h> runs on the device.
constexpr const char* kStdio = "#pragma once\n";

}  // namespace

std::vector<StandardHeader> standard_headers(const std::vector<std::string>& options) {
  std::vector<std::string> include_folders;
  for (const std::string& option : options) {
    for (const std::string prefix : {"--include-path=", "-I"}) {
      if (option.size() > prefix.size() && option.compare(0, prefix.size(), prefix) == 0) {
        include_folders.push_back(option.substr(prefix.size()));
      }
    }
  }
  std::vector<StandardHeader> out;
  for (const StandardHeader& header :
       {StandardHeader{"math.h", kMath}, StandardHeader{"stdio.h", kStdio}}) {
    bool own = false;
    for (const std::string& folder : include_folders) {
      std::error_code ignored;
      own = own || std::filesystem::exists(std::filesystem::path(folder) / header.name, ignored);
    }
    if (!own) out.push_back(header);
  }
  return out;
}

}  // namespace gputune
