"""The test results in the site: the validation report page (``validation_page``), its
numbers at a glance (``box``), the line under each page title (``validated_line``) and
what CUDA blocks printed on a GPU (``gpu_outputs``)."""
