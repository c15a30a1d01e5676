// out = in^T for a rows x cols matrix: one thread per element, reading along a row of `in`
// and writing down a column of `out`.
__global__ void transpose(float* out, const float* in, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) {
    out[x * rows + y] = in[y * cols + x];
  }
}
