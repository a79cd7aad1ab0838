"""What readers take away (``takeaways`` registers them): each page's code as ``.py``
(``downloads``), notebooks (``notebook_downloads``), Markdown and llms.txt (``llms``), the
whole guide on one page (``printing``) and as a PDF (``pdf``), repository links
(``repository``)."""
