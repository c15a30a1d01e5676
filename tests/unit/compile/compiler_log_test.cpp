#include "compile/compiler_log.h"

#include <gtest/gtest.h>

#include <climits>

namespace gputune {
namespace {

const char kReport[] =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z1kILi4EEvPf' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z1kILi4EEvPf\n"
    "ptxas         .     640 bytes stack frame, 392 bytes spill stores, 492 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 1 barriers, 1024 bytes smem\n"
    "ptxas info    : Compiling entry function 'other' for 'sm_90'\n"
    "ptxas info    : Used 200 registers, 40000 bytes smem\n"
    "ptxas info    : Compiling entry function '_Z1jv' for 'sm_90'\n"
    "ptxas         .     0 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
    "ptxas info    : Used 40 registers, 512 bytes smem\n";

TEST(CompilerLog, ResourcesOfTheLaunchedKernelsOnly) {
  const ResourceReport one = resources_of(kReport, {"_Z1kILi4EEvPf"});
  EXPECT_EQ(one.registers, 32);
  EXPECT_EQ(one.shared_bytes, 1024);
  EXPECT_EQ(one.spill_bytes, 392 + 492);
  const ResourceReport two = resources_of(kReport, {"_Z1kILi4EEvPf", "_Z1jv"});
  EXPECT_EQ(two.registers, 40);
  EXPECT_EQ(two.shared_bytes, 1024);
  EXPECT_EQ(two.spill_bytes, 392 + 492 + 12);
  EXPECT_EQ(resources_of(kReport, {"absent"}).registers, 0);
}

TEST(CompilerLog, HugeNumbersSaturateAndLongLinesAreScannedWithoutRecursion) {
  const std::string log =
      "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
      "ptxas info    : Used 99999999999999999999 registers, " +
      std::string(300000, '7') + " bytes smem " + std::string(300000, ' ') + "\n";
  const ResourceReport report = resources_of(log, {"k"});
  EXPECT_EQ(report.registers, INT_MAX);
  EXPECT_EQ(report.shared_bytes, INT_MAX);
}

TEST(CompilerLog, WarningsLeaveOutTheResourceReport) {
  const std::string log = std::string(kReport) + "\nk.cu(3): warning #177-D: unused variable\n";
  EXPECT_EQ(compiler_warnings(log), "k.cu(3): warning #177-D: unused variable");
  EXPECT_EQ(compiler_warnings("ptxasinfo: not a report"), "ptxasinfo: not a report");
}

TEST(CompilerLog, FirstErrorLineIsTheOneThatSaysError) {
  EXPECT_EQ(first_error_line("k.cu(1): warning: w\nk.cu(3): error: expected a \";\"\n"),
            "k.cu(3): error: expected a \";\"");
  EXPECT_EQ(first_error_line("note\nfatal error: no file\n"), "fatal error: no file");
  EXPECT_EQ(first_error_line("ptxas error   : Entry function uses too much\n"),
            "ptxas error   : Entry function uses too much");
  EXPECT_EQ(first_error_line("x error #20: identifier undefined\n"),
            "x error #20: identifier undefined");
  EXPECT_EQ(first_error_line("a terror: no\nerror_count: 0\n"), "a terror: no");
  const std::string spaces(300000, ' ');
  EXPECT_EQ(first_error_line("first\nerror" + spaces + "x\nk: error" + spaces + ": late\n"),
            "k: error" + spaces + ": late");
}

}  // namespace
}  // namespace gputune
