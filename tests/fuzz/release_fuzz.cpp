// A release database (.gtrel) through the run-time library's public API, as an application
// links it (include/gputune/runtime.h): Selector::open and select() for each kernel the file
// names, at problems exact, near and far, on its devices and others. The contract
// (docs/runtime.md): lenient mode never throws, whatever the bytes; strict mode throws only
// RuntimeError, naming the file.
#include <sqlite3.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gputune/runtime.h"

namespace rt = gputune::runtime;

namespace {

[[noreturn]] void broken(const std::string& what) {
  std::fprintf(stderr, "contract broken: %s\n", what.c_str());
  std::abort();
}

// The kernels and problem names the file mentions, read with SQLite itself (a broken file
// mentions none; the selector still has to cope with it).
void mentioned(const std::string& path, std::vector<std::string>* kernels,
               std::vector<std::string>* problem_names) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(("file:" + path + "?immutable=1").c_str(), &db,
                      SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) == SQLITE_OK) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT name FROM kernels LIMIT 4", -1, &s, nullptr) == SQLITE_OK) {
      while (sqlite3_step(s) == SQLITE_ROW) {
        const unsigned char* name = sqlite3_column_text(s, 0);
        if (name != nullptr) kernels->push_back(reinterpret_cast<const char*>(name));
      }
    }
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  kernels->push_back("transpose");
  for (const char* name : {"n", "m", "k", "nx", "ny"}) problem_names->push_back(name);
}

std::string temporary_file() {
  const char* shm = "/dev/shm";
  std::string pattern = std::string(access(shm, W_OK) == 0 ? shm : "/tmp") + "/gtrel-fuzz-XXXXXX";
  const int fd = mkstemp(pattern.data());
  if (fd < 0) broken("no temporary file");
  close(fd);
  return pattern;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = temporary_file();
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  std::vector<std::string> kernels, names;
  mentioned(path, &kernels, &names);
  const rt::DeviceDescription devices[] = {
      rt::DeviceDescription::described("NVIDIA H100 80GB HBM3", 9, 0, 132),
      rt::DeviceDescription::described("NVIDIA H200", 9, 0, 132),
      rt::DeviceDescription::described("Other", 8, 6, 84)};
  const double sizes[] = {4096, 1000, 1, 0, -3, 1e300};
  try {
    const rt::Selector selector = rt::Selector::open({path, path + ".missing"});
    for (const std::string& kernel : kernels) {
      for (const rt::DeviceDescription& device : devices) {
        for (const double size : sizes) {
          rt::ProblemValues problem;
          for (const std::string& name : names) problem[name] = size;
          const rt::Selection s = selector.select(kernel, problem, device);
          s.to_json();
          s.has_code();
          for (const rt::Parameter& p : s.config) s.text(p.name);
        }
        selector.select(kernel, {}, device, "another-source-hash");
      }
    }
    selector.warnings();
  } catch (const std::exception& e) {
    broken(std::string("lenient select threw: ") + e.what());
  } catch (...) {
    broken("lenient select threw something");
  }
  try {
    const rt::Selector strict = rt::Selector::open({path}, rt::Options{true});
    for (const std::string& kernel : kernels) {
      rt::ProblemValues problem;
      for (const std::string& name : names) problem[name] = 4096;
      strict.select(kernel, problem, devices[0]).to_json();
    }
  } catch (const rt::RuntimeError& e) {
    if (std::string(e.what()).find(path) == std::string::npos &&
        std::string(e.what()).find("no release database holds") == std::string::npos) {
      broken(std::string("a strict error that does not name the file: ") + e.what());
    }
  } catch (const std::exception& e) {
    broken(std::string("strict select threw other than RuntimeError: ") + e.what());
  }
  return 0;
}
