"""The proof and patch machinery: what a group declares (``spec``), how a tested release proves
it (``proof``, ``fingerprints.json``), how an attribute is replaced and restored (``patch``), and
``installer``, which applies the groups the installed SDKs prove."""
