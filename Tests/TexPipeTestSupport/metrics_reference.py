#!/usr/bin/env python3
"""The tests' references for texpipe's perceptual measures: scikit-image's structural_similarity
(Wang et al.'s SSIM: gaussian_weights, sigma 1.5, population variances, data range 255) per
channel, and NVIDIA's FLIP (flip-evaluator, LDR, 67 pixels per degree) mean.

  metrics_reference.py LIST   # LIST: lines "width height reference.rgba test.rgba" (raw RGBA8)

Prints per pair: SSIM of R, G, B and A, then the FLIP mean. A line "hdr width height
reference.f32 test.f32" (raw float32 RGBA, linear) prints HDR-FLIP's mean (exposures as FLIP
computes them, ACES) and the start and stop exposures it used.
"""
import sys

import flip_evaluator
import numpy as np
from skimage.metrics import structural_similarity


def main():
    for line in open(sys.argv[1]):
        if line.startswith("hdr "):
            _, w, h, a, b = line.split()
            w, h = int(w), int(h)
            ref = np.fromfile(a, dtype=np.float32).reshape(h, w, 4)[..., :3].copy()
            test = np.fromfile(b, dtype=np.float32).reshape(h, w, 4)[..., :3].copy()
            _, mean, params = flip_evaluator.evaluate(ref, test, "HDR", applyMagma=False)
            print(f"{float(mean):.6f} {params['startExposure']:.6f} {params['stopExposure']:.6f}")
            continue
        w, h, a, b = line.split()
        w, h = int(w), int(h)
        ref = np.fromfile(a, dtype=np.uint8).reshape(h, w, 4)
        test = np.fromfile(b, dtype=np.uint8).reshape(h, w, 4)
        ssim = [structural_similarity(ref[..., c], test[..., c], gaussian_weights=True, sigma=1.5,
                                      use_sample_covariance=False, data_range=255) for c in range(4)]
        _, mean, _ = flip_evaluator.evaluate(ref[..., :3].astype(np.float32) / 255,
                                             test[..., :3].astype(np.float32) / 255, "LDR",
                                             applyMagma=False)
        print(" ".join(f"{v:.6f}" for v in ssim + [float(mean)]))


if __name__ == "__main__":
    main()
