#include "compile/module_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "gputune/error.h"
#include "support/engine_fakes.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;
using testing::ScriptedCompiler;

CompileRequest request(int i) {
  CompileRequest r;
  r.source = "__global__ void k() {}  // " + std::to_string(i);
  r.source_name = "k.cu";
  r.kernel_name_expressions = {"k"};
  r.options = {"-DI=" + std::to_string(i)};
  r.arch = "sm_90";
  return r;
}

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() / ("gputune_module_cache_test_" + std::to_string(getpid()) +
                                         "_" + std::to_string(counter_++));
    fs::remove_all(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string str() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

TEST(ModuleCache, MissThenHitWithTheSameModule) {
  TempDir dir;
  ModuleCache cache(dir.str() + "/modules", "13.0", dir.str() + "/k.key");
  EXPECT_FALSE(cache.load(request(1)));
  ScriptedCompiler compiler;
  CompiledKernel kernel = compiler.compile(request(1));
  kernel.spill_bytes = 8;
  kernel.log = "ptxas info: used 33 registers";
  cache.save(request(1), kernel);
  auto hit = cache.load(request(1));
  ASSERT_TRUE(hit);
  EXPECT_TRUE(hit->cached);
  EXPECT_EQ(hit->image, kernel.image);
  EXPECT_EQ(hit->lowered_names, kernel.lowered_names);
  EXPECT_EQ(hit->registers, kernel.registers);
  EXPECT_EQ(hit->shared_bytes, kernel.shared_bytes);
  EXPECT_EQ(hit->spill_bytes, 8);
  EXPECT_EQ(hit->log, kernel.log);
  EXPECT_DOUBLE_EQ(hit->compile_ms, kernel.compile_ms);

  // Anything that changes the cubin is another key.
  EXPECT_FALSE(cache.load(request(2)));
  CompileRequest other_arch = request(1);
  other_arch.arch = "sm_80";
  EXPECT_FALSE(cache.load(other_arch));
  CompileRequest other_source = request(1);
  other_source.source += " ";
  EXPECT_FALSE(cache.load(other_source));
  CompileRequest other_headers = request(1);
  other_headers.headers_hash = "0123456789abcdef";
  EXPECT_FALSE(cache.load(other_headers));
  EXPECT_FALSE(ModuleCache(dir.str() + "/modules", "13.1", dir.str() + "/k.key").load(request(1)));
  // No temporary files are left behind.
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(cache.directory())) {
    ++files;
    EXPECT_EQ(entry.path().extension(), ".module") << entry.path();
  }
  EXPECT_EQ(files, 1u);
}

TEST(ModuleCache, CorruptOrTruncatedEntriesAreMisses) {
  TempDir dir;
  ModuleCache cache(dir.str(), "13.0", dir.str() + "/k.key");
  ScriptedCompiler compiler;
  cache.save(request(1), compiler.compile(request(1)));
  const std::string path = cache.path_for(request(1));
  std::string data;
  {
    std::ifstream in(path, std::ios::binary);
    data.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(data.size(), 40u);
  std::string flipped = data;
  flipped[flipped.size() / 2] ^= 0x5A;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << flipped;
  EXPECT_FALSE(cache.load(request(1)));
  std::ofstream(path, std::ios::binary | std::ios::trunc) << data.substr(0, data.size() / 3);
  EXPECT_FALSE(cache.load(request(1)));
  std::ofstream(path, std::ios::binary | std::ios::trunc) << "";
  EXPECT_FALSE(cache.load(request(1)));
  // A later save repairs it.
  cache.save(request(1), compiler.compile(request(1)));
  EXPECT_TRUE(cache.load(request(1)));
}

TEST(ModuleCache, KernelNamesAndOptionsArePartOfTheKey) {
  TempDir dir;
  ModuleCache cache(dir.str(), "13.0", dir.str() + "/k.key");
  ScriptedCompiler compiler;
  cache.save(request(1), compiler.compile(request(1)));
  ASSERT_TRUE(cache.load(request(1)));
  CompileRequest other_names = request(1);
  other_names.kernel_name_expressions = {"k", "k2"};
  EXPECT_FALSE(cache.load(other_names));
  CompileRequest other_options = request(1);
  other_options.options.push_back("-maxrregcount=32");
  EXPECT_FALSE(cache.load(other_options));
  CompileRequest other_source_name = request(1);
  other_source_name.source_name = "other.cu";
  EXPECT_FALSE(cache.load(other_source_name));
  EXPECT_NE(cache.path_for(request(1)), cache.path_for(other_options));
  EXPECT_EQ(cache.path_for(request(1)).rfind(cache.directory() + "/", 0), 0u);
}

TEST(ModuleCache, UncreatableDirectoryIsAnIoError) {
  TempDir dir;
  fs::create_directories(dir.str());
  const std::string file = dir.str() + "/a_file";
  std::ofstream(file) << "x";
  try {
    ModuleCache cache(file + "/modules", "13.0", dir.str() + "/k.key");
    FAIL() << "a directory under a file was created";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIo) << e.what();
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// An entry written without the cache key (a tampered cubin whose old checksum, a hash of public
// data, was recomputed; another user's entry in a shared folder) is a miss, never a module.
TEST(ModuleCache, EntriesWithoutTheOwnersKeyAreMisses) {
  TempDir dir;
  ModuleCache cache(dir.str() + "/modules", "13.0", dir.str() + "/mine.key");
  ScriptedCompiler compiler;
  cache.save(request(1), compiler.compile(request(1)));
  ASSERT_TRUE(cache.load(request(1)));
  ModuleCache theirs(dir.str() + "/modules", "13.0", dir.str() + "/theirs.key");
  EXPECT_FALSE(theirs.load(request(1)));
  EXPECT_NE(read_file(dir.str() + "/mine.key"), read_file(dir.str() + "/theirs.key"));
  EXPECT_EQ(fs::status(dir.str() + "/mine.key").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  // The same key file shares the cache.
  EXPECT_TRUE(
      ModuleCache(dir.str() + "/modules", "13.0", dir.str() + "/mine.key").load(request(1)));
}

TEST(ModuleCache, AKeyOthersMayWriteIsRefused) {
  TempDir dir;
  ModuleCache cache(dir.str() + "/modules", "13.0", dir.str() + "/k.key");
  // A key of the user's that others may read is made private again.
  fs::permissions(dir.str() + "/k.key", fs::perms::group_read | fs::perms::others_read,
                  fs::perm_options::add);
  ModuleCache readable(dir.str() + "/modules", "13.0", dir.str() + "/k.key");
  EXPECT_EQ(fs::status(dir.str() + "/k.key").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  fs::permissions(dir.str() + "/k.key", fs::perms::others_write, fs::perm_options::add);
  try {
    ModuleCache again(dir.str() + "/modules", "13.0", dir.str() + "/k.key");
    FAIL() << "a world-writable key was used";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIo);
    EXPECT_NE(std::string(e.what()).find("k.key"), std::string::npos) << e.what();
  }
}

// Headers found through --include-path (and beside the source, and nested) are part of the
// key: after one changes, the old module is a miss (it was a hit, with the old code).
TEST(ModuleCache, EveryIncludedFileIsPartOfTheKey) {
  TempDir dir;
  fs::create_directories(dir.str() + "/inc/sub");
  std::ofstream(dir.str() + "/inc/outer.cuh") << "#include \"sub/inner.cuh\"\n";
  std::ofstream(dir.str() + "/inc/sub/inner.cuh") << "#define V 1\n";
  ModuleCache cache(dir.str() + "/modules", "13.0", dir.str() + "/k.key");
  CompileRequest r = request(1);
  r.source = "#include <outer.cuh>\n  #  include \"cuda_fp16.h\"\n" + r.source;
  r.options.push_back("--include-path=" + dir.str() + "/inc");
  ScriptedCompiler compiler;
  cache.save(r, compiler.compile(r));
  EXPECT_TRUE(cache.load(r));
  std::ofstream(dir.str() + "/inc/sub/inner.cuh") << "#define V 2\n";
  // A new process (a new cache object) reads the files again.
  ModuleCache later(dir.str() + "/modules", "13.0", dir.str() + "/k.key");
  EXPECT_FALSE(later.load(r));
  CompileRequest short_option = r;
  short_option.options.back() = "-I" + dir.str() + "/inc";
  later.save(short_option, compiler.compile(short_option));
  std::ofstream(dir.str() + "/inc/outer.cuh") << "#include \"sub/inner.cuh\"\n// changed\n";
  EXPECT_FALSE(
      ModuleCache(dir.str() + "/modules", "13.0", dir.str() + "/k.key").load(short_option));
}

TEST(ModuleCache, AComputedIncludeIsNeverCached) {
  TempDir dir;
  ModuleCache cache(dir.str() + "/modules", "13.0", dir.str() + "/k.key");
  CompileRequest r = request(1);
  r.source = "#define H \"x.cuh\"\n#include H\n" + r.source;
  ScriptedCompiler compiler;
  cache.save(r, compiler.compile(r));
  EXPECT_FALSE(cache.load(r));
  EXPECT_EQ(cache.path_for(r), "");
  EXPECT_FALSE(fs::exists(dir.str() + "/modules") && !fs::is_empty(dir.str() + "/modules"));
}

// Without a home folder the cache falls back to a folder only its user can enter (it was the
// world-writable /tmp/gputune-modules).
TEST(ModuleCache, TheFallbackFolderIsPrivate) {
  const char* home = std::getenv("HOME");
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const std::string saved_home = home ? home : "", saved_xdg = xdg ? xdg : "";
  ::unsetenv("HOME");
  ::unsetenv("XDG_CACHE_HOME");
  const std::string folder = ModuleCache::default_directory();
  if (!saved_home.empty()) ::setenv("HOME", saved_home.c_str(), 1);
  if (!saved_xdg.empty()) ::setenv("XDG_CACHE_HOME", saved_xdg.c_str(), 1);
  EXPECT_EQ(
      folder,
      (fs::temp_directory_path() / ("gputune-modules-" + std::to_string(geteuid()))).string());
  TempDir dir;
  ModuleCache cache(folder, "13.0", dir.str() + "/k.key");
  EXPECT_EQ(fs::status(folder).permissions() & fs::perms::all, fs::perms::owner_all);
}

}  // namespace
}  // namespace gputune
