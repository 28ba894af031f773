// Diagrams are drawn to fit the column; a click opens one at its full size.
document.addEventListener("DOMContentLoaded", () => {
  for (const img of document.querySelectorAll(".cell_output img")) {
    if (img.closest("a")) continue;
    const link = document.createElement("a");
    link.href = img.src;
    link.target = "_blank";
    link.title = "Open at full size";
    link.className = "book-full-size";
    img.replaceWith(link);
    link.appendChild(img);
  }
});
