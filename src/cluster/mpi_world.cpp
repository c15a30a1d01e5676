#include "cluster/mpi_world.h"

#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <future>
#include <iostream>
#include <memory>
#include <thread>

#include <cstdint>
#include <cstdlib>

#include "gputune/error.h"

namespace gputune {
namespace {

constexpr const char* kHowToGetMpi =
    "install Open MPI (Debian/Ubuntu: apt-get install openmpi-bin libopenmpi-dev) and start "
    "gputune with mpirun, such as mpirun --enable-recovery --bind-to none -n 4 gputune search SPEC "
    "--mpi";

#if GPUTUNE_MPI

// Open MPI's handles are pointers to its predefined objects; only this file knows.
using Handle = void*;

struct MpiApi {
  int (*init)(int*, char***) = nullptr;
  int (*comm_rank)(Handle, int*) = nullptr;
  int (*comm_size)(Handle, int*) = nullptr;
  int (*bcast)(void*, int, Handle, int, Handle) = nullptr;
  int (*finalize)() = nullptr;
  Handle comm_world = nullptr;
  Handle mpi_char = nullptr;
  Handle mpi_uint64 = nullptr;
};

template <typename T>
void resolve(void* library, const char* name, T* out) {
  void* symbol = dlsym(library, name);
  if (symbol == nullptr) {
    throw Error(ErrorCode::kUsage, std::string("--mpi: libmpi lacks ") + name +
                                       "; expected Open MPI 4 or later: " + kHowToGetMpi);
  }
  *out = reinterpret_cast<T>(symbol);
}

MpiApi& api() {
  static MpiApi mpi = [] {
    // Open MPI's plugins find libmpi's symbols only when it is loaded globally.
    void* library = dlopen("libmpi.so.40", RTLD_NOW | RTLD_GLOBAL);
    if (library == nullptr) library = dlopen("libmpi.so", RTLD_NOW | RTLD_GLOBAL);
    if (library == nullptr) {
      throw Error(ErrorCode::kUsage, std::string("--mpi: cannot load Open MPI's libmpi.so.40 (") +
                                         dlerror() + "): " + kHowToGetMpi);
    }
    MpiApi loaded;
    resolve(library, "MPI_Init", &loaded.init);
    resolve(library, "MPI_Comm_rank", &loaded.comm_rank);
    resolve(library, "MPI_Comm_size", &loaded.comm_size);
    resolve(library, "MPI_Bcast", &loaded.bcast);
    resolve(library, "MPI_Finalize", &loaded.finalize);
    resolve(library, "ompi_mpi_comm_world", &loaded.comm_world);
    resolve(library, "ompi_mpi_char", &loaded.mpi_char);
    resolve(library, "ompi_mpi_uint64_t", &loaded.mpi_uint64);
    return loaded;
  }();
  return mpi;
}

void check(int rc, const char* what) {
  if (rc != 0) {
    throw Error(ErrorCode::kInternal,
                std::string("--mpi: ") + what + " failed with MPI error " + std::to_string(rc));
  }
}

}  // namespace

MpiWorld mpi_start() {
  MpiApi& mpi = api();
  check(mpi.init(nullptr, nullptr), "MPI_Init");
  MpiWorld world;
  check(mpi.comm_rank(mpi.comm_world, &world.rank), "MPI_Comm_rank");
  check(mpi.comm_size(mpi.comm_world, &world.size), "MPI_Comm_size");
  return world;
}

std::string mpi_share_from_root(const std::string& text) {
  MpiApi& mpi = api();
  uint64_t size = text.size();
  check(mpi.bcast(&size, 1, mpi.mpi_uint64, 0, mpi.comm_world), "MPI_Bcast");
  std::string out = text;
  out.resize(size);
  check(mpi.bcast(out.data(), static_cast<int>(size), mpi.mpi_char, 0, mpi.comm_world),
        "MPI_Bcast");
  return out;
}

// After a rank died, Open MPI's finalize sometimes waits for it forever: give it a while, then
// leave without it (what had to be said went over our own sockets and is stored).
void mpi_finish() {
  std::cout.flush();
  std::fflush(nullptr);
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> finished = done->get_future();
  std::thread([done] {
    api().finalize();
    done->set_value();
  }).detach();
  if (finished.wait_for(std::chrono::seconds(10)) != std::future_status::ready) _exit(0);
}

#else

}  // namespace

MpiWorld mpi_start() {
  throw Error(ErrorCode::kUsage,
              std::string("--mpi: this gputune was built without MPI (cmake -DGPUTUNE_MPI=OFF); "
                          "rebuild it with -DGPUTUNE_MPI=ON, ") +
                  kHowToGetMpi);
}
std::string mpi_share_from_root(const std::string& text) { return text; }
void mpi_finish() {}

#endif

}  // namespace gputune
