import { Product } from './product.entity';
import { ProductImage } from './product-image.entity';
import { Stock } from './stock.entity';
import { companyDemo } from '../company/company.demo';
import { collectionDemo } from '../collection/collection.demo';
import { crlDemo } from '../company-retailer-location/company-retailer-location.demo';
import { PRODUCTS } from '../demo/demo-network';
import type { DemoPart } from '../demo/demo-part';

/** The demo company's products, each with an image, the bikes in its collection. */
export const productDemo: DemoPart<Product[]> = {
  name: 'product',
  after: [companyDemo, collectionDemo],
  seed: (demo) => {
    const company = demo.get(companyDemo);
    const collection = demo.get(collectionDemo);
    const products = PRODUCTS.map((p) => {
      const product = demo.tx.create(Product, {
        company,
        sku: p.sku,
        name: p.name,
        category: p.category,
        externalId: p.externalId,
        url: `https://cascade-cycles.example/products/${p.sku.toLowerCase()}`,
        collection: p.inCollection ? collection : null,
      });
      const image = `https://cascade-cycles.example/images/${p.sku.toLowerCase()}`;
      demo.tx.create(ProductImage, { product, url: `${image}.jpg`, thumbnailUrl: `${image}-thumb.jpg`, position: 0 });
      return product;
    });
    demo.report.products = products.map((p) => ({ id: p.id, sku: p.sku, name: p.name }));
    return products;
  },
};

/** Every product's stock level at every store: most stocked, some available to order. */
export const stockDemo: DemoPart<void> = {
  name: 'stock',
  after: [productDemo, crlDemo],
  seed: (demo) => {
    const products = demo.get(productDemo);
    demo.get(crlDemo).forEach(({ crl }, i) =>
      products.forEach((product, j) => {
        const stocked = (i + j) % 3 !== 2;
        demo.tx.create(Stock, { companyRetailerLocation: crl, product, stocked, available: stocked || (i + j) % 2 === 0 });
      }),
    );
  },
};
