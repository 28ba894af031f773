"""Wrong solutions to appendix A27's exercise: each runs, and the check must reject it."""
from book.wrong import Wrong

E1 = "1. A box blur"

WRONG = [
    Wrong(E1, "the channels mixed: no feature groups, a full kernel", """
          c = images.shape[-1]
          kernel = jnp.full((k, k, c, c), 1.0 / k ** 2, images.dtype)
          return conv_general_dilated(images, kernel, (1, 1), "SAME",
                                      dimension_numbers=("NHWC", "HWIO", "NHWC"))
          """, reason="each channel is blurred on its own"),
    Wrong(E1, "'VALID' padding: the image shrinks", """
          c = images.shape[-1]
          kernel = jnp.full((k, k, 1, c), 1.0 / k ** 2, images.dtype)
          return conv_general_dilated(images, kernel, (1, 1), "VALID",
                                      dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                      feature_group_count=c)
          """, reason="should keep the shape"),
    Wrong(E1, "a sum, not a mean", """
          c = images.shape[-1]
          kernel = jnp.ones((k, k, 1, c), images.dtype)
          return conv_general_dilated(images, kernel, (1, 1), "SAME",
                                      dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                      feature_group_count=c)
          """, reason="the kernel is all 1/k"),
    Wrong(E1, "the default layout: the channels taken for rows", """
          c = images.shape[1]
          kernel = jnp.full((c, 1, k, k), 1.0 / k ** 2, images.dtype)
          return conv_general_dilated(images, kernel, (1, 1), "SAME", feature_group_count=c)
          """, reason="should keep the shape|differs|feature_group_count|cannot|must"),
]

E2 = "2. NumPy's 'same' convolution, by hand"

WRONG += [
    Wrong(E2, "the kernel not flipped: a correlation", """
          k = v.shape[0]
          out = conv_general_dilated(a[None, None], v[None, None], (1,),
                                     [(k // 2, k - k // 2 - 1)])
          return out[0, 0]
          """, reason="flip the kernel"),
    Wrong(E2, "'SAME' padding: the odd element on the wrong side", """
          out = conv_general_dilated(a[None, None], jnp.flip(v)[None, None], (1,), "SAME")
          return out[0, 0]
          """, reason="// 2 before and the rest after"),
    Wrong(E2, "no padding: the 'valid' part", """
          out = conv_general_dilated(a[None, None], jnp.flip(v)[None, None], (1,), "VALID")
          return out[0, 0]
          """, reason="should have length"),
]
