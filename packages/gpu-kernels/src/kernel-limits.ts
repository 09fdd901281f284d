/** Invocations per workgroup in every kernel (the WebGPU default limit). */
export const kWorkgroupSize = 256;
/** Workgroups in one dimension of a dispatch (WebGPU's guaranteed minimum). */
export const kWorkgroupsMax = 65_535;
/** Output slots one extend can produce: one thread each, one dispatch dimension. */
export const kOutputSlotsMax = kWorkgroupSize * kWorkgroupsMax;
/** Requests per batch: the engine's largest batches are far below; the scan walks them in one workgroup. */
export const kBatchSizeMax = 65_536;
/** Words in a uniform block of params (bs, total, …), padded to 16 bytes. */
export const kParamsWords = 4;
