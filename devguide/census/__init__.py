"""What ran: the census file (``file``: build/validation.json, its schema, loading and the
reuse keys), the CPU run recorded in the repository (``summary``), the runs read per page
and block (``results``), the machine and torch facts they were recorded with."""
