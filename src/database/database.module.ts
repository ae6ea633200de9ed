import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { DataSource } from 'typeorm';
import { dataSourceOptions, initializeAndMigrate } from './data-source';

/**
 * The one DataSource, migrated at start-up (PostgreSQL with DATABASE_URL, else embedded PGlite).
 * Each feature registers its own entities (TypeOrmModule.forFeature in its module), which the
 * DataSource loads: it knows those of the modules the application (or the CLI) is made of.
 */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({ ...dataSourceOptions(config), autoLoadEntities: true }),
      dataSourceFactory: (options) => initializeAndMigrate(new DataSource(options!)),
    }),
  ],
  exports: [TypeOrmModule],
})
export class DatabaseModule {}
