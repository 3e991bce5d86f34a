"""What the columns and dtype notations of the ``opgen check`` table mean (no heavy imports: the
command-line help shows it)."""

#: What the notations of the table mean (printed under the table and in ``opgen check --help``).
LEGEND = (
    "dtype: A = every tensor of the case in A; A/B = grad in A, indices in B (index ops); A->B = inputs in A, "
    "output in B (converted once); A+B = inputs of both dtypes in one call, promoted to the wider one (or, where "
    "a mixed OpDef dtype column takes them, passed as they are); "
    "A (t B) = the first input in A and tensor t in B, one of the op's dtype combinations or mixed OpDef dtype "
    "columns; "
    "- = the case has no dtype (build, reference or worker failure). "
    "max abs err = largest |got - reference| over the output; bound = the error accepted at that element "
    "(atol + rtol*|ref| + half an ULP of the output dtype); max ULP err = largest distance, in representable "
    "values of the output dtype, from the reference rounded to it; bound from: derived = from the kernel's "
    "instruction sequence and the inputs, tolerance() = the reference module's, default = 16 fp32 roundings. "
    "product (ran as P) = the product's fingerprint equals P's, so P's build and run stand for it "
    "(--all-products runs it)."
)
